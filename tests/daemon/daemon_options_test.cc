#include "daemon/daemon_options.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/daemon/temp_dir.h"

namespace mineru::daemon {
namespace {

Result<DaemonOptions> Parse(std::vector<const char*> args) {
  args.insert(args.begin(), "minerud");
  return ParseDaemonOptions(static_cast<int>(args.size()), args.data());
}

TEST(DaemonOptionsTest, FlagsBecomeOverridesAppliedAfterTheFile) {
  mineru::testing::TempDir tmp;
  std::string conf = tmp.path() + "/m.conf";
  std::ofstream(conf) << "max_jobs_per_user = 5\nworkers = 3\n";
  auto o =
      Parse({"--config", conf.c_str(), "--workers", "7", "--set", "drain_timeout=2s", "--socket=/x.sock"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->mode, DaemonOptions::Mode::kServe);
  auto c = LoadDaemonConfig(*o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->max_jobs_per_user, 5);
  EXPECT_EQ(c->workers, 7);
  EXPECT_EQ(c->drain_timeout_ms, 2000);
  EXPECT_EQ(c->socket_path, "/x.sock");
  EXPECT_FALSE(c->state_dir.empty()) << "a default fills an empty state_dir";
}

TEST(DaemonOptionsTest, ModesAndErrors) {
  EXPECT_EQ(Parse({"--help"})->mode, DaemonOptions::Mode::kHelp);
  EXPECT_EQ(Parse({"--version"})->mode, DaemonOptions::Mode::kVersion);
  EXPECT_EQ(Parse({"--check-config"})->mode, DaemonOptions::Mode::kCheckConfig);
  auto plan = Parse({"plan", "--model", "m", "--vram-budget", "6G"});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->mode, DaemonOptions::Mode::kPlan);
  EXPECT_EQ(plan->plan_args, (std::vector<std::string>{"--model", "m", "--vram-budget", "6G"}));
  EXPECT_FALSE(plan->config_path_given);
  // The plan reads the daemon's config file: --config is taken out of its own arguments.
  auto planned = Parse({"plan", "--config", "/etc/x.conf", "--max-batch", "4", "--config=/etc/y.conf"});
  ASSERT_TRUE(planned.ok());
  EXPECT_EQ(planned->config_path, "/etc/y.conf");
  EXPECT_TRUE(planned->config_path_given);
  EXPECT_EQ(planned->plan_args, (std::vector<std::string>{"--max-batch", "4"}));
  EXPECT_FALSE(Parse({"plan", "--config"}).ok());
  EXPECT_FALSE(Parse({"--socket"}).ok());
  EXPECT_FALSE(Parse({"--frob"}).ok());
  EXPECT_FALSE(Parse({"--set", "novalue"}).ok());
  EXPECT_FALSE(Parse({"--set", "unknown_key=1"}).ok());
}

TEST(DaemonOptionsTest, BadValuesAndMissingExplicitConfigFail) {
  auto bad = Parse({"--vram-budget", "lots"});
  ASSERT_TRUE(bad.ok());
  EXPECT_FALSE(LoadDaemonConfig(*bad).ok());
  auto missing = Parse({"--config", "/nonexistent/minerud.conf"});
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(LoadDaemonConfig(*missing).ok());
  auto mode = Parse({"--set", "socket_mode=0999"});
  ASSERT_TRUE(mode.ok());
  EXPECT_FALSE(LoadDaemonConfig(*mode).ok());
}

TEST(DaemonOptionsTest, UsageListsEveryConfigKey) {
  std::string usage = DaemonUsage();
  for (const ConfigKeyInfo& k : ConfigSchemaFor().keys()) {
    EXPECT_NE(usage.find("  " + k.key + " (" + k.type + ")"), std::string::npos) << k.key;
    EXPECT_NE(usage.find(k.help), std::string::npos) << k.key;
  }
}

}  // namespace
}  // namespace mineru::daemon
