// libmineru-client.so (client/CMakeLists.txt, client/libmineru-client.map): it exports every function
// the C header declares and the C++ API, and nothing else.
#include <cxxabi.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <regex>
#include <set>
#include <string>

namespace {

std::set<std::string> DeclaredCFunctions() {
  std::ifstream in(std::string(MINERU_SOURCE_DIR) + "/include/mineru/client_c.h");
  const std::string header((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::set<std::string> names;
  const std::regex declaration(R"(\b(mineru_[a-z_]+)\()");
  for (auto it = std::sregex_iterator(header.begin(), header.end(), declaration);
       it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1]);
  }
  return names;
}

std::string Demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : symbol;
}

// The dynamic symbols the library defines (nm -D --defined-only), demangled.
std::set<std::string> ExportedSymbols() {
  std::set<std::string> symbols;
  const std::string command = "nm -D --defined-only '" + std::string(MINERU_CLIENT_SHARED_LIBRARY) + "'";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return symbols;
  char line[4096];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    std::string l(line);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    const size_t space = l.rfind(' ');
    if (space != std::string::npos) symbols.insert(Demangle(l.substr(space + 1)));
  }
  pclose(pipe);
  return symbols;
}

TEST(SharedLibraryTest, EveryDeclaredCFunctionResolves) {
  void* library = dlopen(MINERU_CLIENT_SHARED_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  const std::set<std::string> declared = DeclaredCFunctions();
  EXPECT_GT(declared.size(), 40u) << "the header's declarations were not found";
  for (const std::string& name : declared) EXPECT_NE(dlsym(library, name.c_str()), nullptr) << name;
  using VersionFn = const char* (*)();
  auto version = reinterpret_cast<VersionFn>(dlsym(library, "mineru_version"));
  ASSERT_NE(version, nullptr);
  EXPECT_STREQ(version(), MINERU_EXPECTED_VERSION);
  dlclose(library);
}

TEST(SharedLibraryTest, ExportsTheApiAndNothingElse) {
  const std::set<std::string> symbols = ExportedSymbols();
  ASSERT_FALSE(symbols.empty()) << "nm found no symbols";
  const std::set<std::string> declared = DeclaredCFunctions();
  const std::regex api(
      R"(^(mineru::client::(Client|DocumentBuffer|JobStateName)\b.*|mineru::Status::.*|mineru::StatusCodeName\(.*|mineru::ErrnoToStatusCode\(.*|mineru::ErrnoStatus\(.*)$)");
  for (const std::string& s : symbols) {
    if (s.rfind("mineru_", 0) == 0) {
      EXPECT_TRUE(declared.count(s)) << "exported but not in client_c.h: " << s;
      continue;
    }
    EXPECT_TRUE(std::regex_match(s, api)) << "exported but not API: " << s;
    EXPECT_EQ(s.find("::Impl::"), std::string::npos) << s;
  }
}

}  // namespace
