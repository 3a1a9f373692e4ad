// Model folders: the golden checkpoints open and list their units; sharded checkpoints give the same
// logits as single files; broken folders (truncated weights, missing or misshapen tensors, a weight
// with an integer dtype, bad or incomplete JSON, a missing vision config) are clear errors.
#include "engine/checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/mineru2_model.h"
#include "engine/model_units.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

namespace fs = std::filesystem;

class ModelFolderTest : public ::testing::Test {
 protected:
  // A private copy of a golden model folder that the test may break.
  fs::path CopyOf(const fs::path& golden_dir) {
    dir_ = fs::temp_directory_path() / ("engine_ckpt_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const auto& e : fs::directory_iterator(golden_dir)) {
      if (e.path().filename() == "cases") continue;
      fs::copy(e.path(), dir_ / e.path().filename(), fs::copy_options::recursive);
    }
    return dir_;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  // Rewrites model.safetensors through `edit` on the list of (name, tensor).
  template <typename F>
  void RewriteWeights(F edit) {
    auto ckpt = Checkpoint::Open(dir_);
    ASSERT_TRUE(ckpt.ok());
    std::vector<std::pair<std::string, at::Tensor>> tensors;
    for (const auto& e : ckpt->files()[0].entries())
      tensors.emplace_back(e.name, ckpt->View(e.name)->clone());
    edit(tensors);
    ASSERT_TRUE(WriteSafetensors((dir_ / "model.safetensors").string(), tensors).ok());
  }
  void EditConfig(const std::string& file, const std::function<void(nlohmann::json&)>& edit) {
    std::ifstream in(dir_ / file);
    nlohmann::json j = nlohmann::json::parse(in);
    edit(j);
    std::ofstream(dir_ / file) << j.dump(1);
  }
  Status LoadStatus() { return Mineru2Model::Load(dir_, {}).status(); }

  fs::path dir_;
};

void ExpectError(const Status& s, std::initializer_list<std::string> needles) {
  ASSERT_FALSE(s.ok());
  for (const auto& n : needles) EXPECT_NE(s.message().find(n), std::string::npos) << s.ToString();
}

TEST_F(ModelFolderTest, GoldenFoldersListTheirUnits) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  auto config = ModelConfig::Load(shared / "golden/vlm-untied-f32");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto ckpt = Checkpoint::Open(shared / "golden/vlm-untied-f32");
  ASSERT_TRUE(ckpt.ok());
  auto units = ListModelUnits(*ckpt, *config);
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  // vision.embeddings, 2 used vision layers (of 3 in the config), projector, embed, 2 layers, head.
  std::vector<std::string> names;
  for (const auto& u : *units) names.push_back(u.name);
  EXPECT_EQ(names, (std::vector<std::string>{"vision.embeddings", "vision.0", "vision.1", "projector",
                                             "embed_tokens", "decoder.0", "decoder.1", "head"}));
  EXPECT_FALSE(CheckpointIsTied(*ckpt));
  // Every listed byte is a real range of the file, and the config-only sizes agree for F32 storage.
  const auto from_config = UnitsFromConfig(*config, StorageDtype::kF32, false);
  ASSERT_EQ(from_config.size(), units->size());
  for (size_t i = 0; i < units->size(); ++i) EXPECT_EQ((*units)[i].size_bytes, from_config[i].size_bytes);
  auto tied = Checkpoint::Open(shared / "golden/vlm-tied-bf16");
  ASSERT_TRUE(tied.ok());
  EXPECT_TRUE(CheckpointIsTied(*tied));
}

TEST_F(ModelFolderTest, ShardedCheckpointGivesTheSameLogits) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const fs::path golden = shared / "golden/text-untied-bf16";
  CopyOf(golden);
  auto ckpt = Checkpoint::Open(dir_);
  ASSERT_TRUE(ckpt.ok());
  std::vector<std::pair<std::string, at::Tensor>> a, b;
  nlohmann::json index = {{"metadata", nlohmann::json::object()}, {"weight_map", nlohmann::json::object()}};
  int i = 0;
  for (const auto& e : ckpt->files()[0].entries()) {
    auto& part = (i++ % 2) ? a : b;
    part.emplace_back(e.name, ckpt->View(e.name)->clone());
    index["weight_map"][e.name] =
        (&part == &a) ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  ASSERT_TRUE(WriteSafetensors((dir_ / "model-00001-of-00002.safetensors").string(), a).ok());
  ASSERT_TRUE(WriteSafetensors((dir_ / "model-00002-of-00002.safetensors").string(), b).ok());
  fs::remove(dir_ / "model.safetensors");
  std::ofstream(dir_ / "model.safetensors.index.json") << index.dump();

  const std::vector<int64_t> tokens = {5, 17, 29, 101, 7};
  at::Tensor logits[2];
  int k = 0;
  for (const fs::path& d : {golden, dir_}) {
    auto model = Mineru2Model::Load(d, {});
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    KvSequence seq;
    auto l = (*model)->decoder().Prefill(seq, *(*model)->EmbedPrompt(tokens, nullptr), 64, true);
    ASSERT_TRUE(l.ok());
    logits[k++] = *l;
  }
  EXPECT_TRUE(at::equal(logits[0], logits[1]));

  // An index naming a tensor the shard does not hold.
  index["weight_map"]["model.extra"] = "model-00001-of-00002.safetensors";
  std::ofstream(dir_ / "model.safetensors.index.json") << index.dump();
  ExpectError(LoadStatus(), {"model.extra", "index"});
}

TEST_F(ModelFolderTest, TruncatedWeightsAreAnError) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  CopyOf(shared / "golden/text-tied-f32");
  const auto size = fs::file_size(dir_ / "model.safetensors");
  fs::resize_file(dir_ / "model.safetensors", size / 2);
  ExpectError(LoadStatus(), {"model.safetensors", "truncated"});
  fs::resize_file(dir_ / "model.safetensors", 3);
  ExpectError(LoadStatus(), {"too short"});
}

TEST_F(ModelFolderTest, MissingMisshapenOrIntegerTensorsAreErrors) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  CopyOf(shared / "golden/text-untied-bf16");
  RewriteWeights([](auto& t) {
    std::erase_if(t, [](const auto& p) { return p.first == "model.layers.1.mlp.up_proj.weight"; });
  });
  ExpectError(LoadStatus(), {"model.layers.1.mlp.up_proj.weight", "missing"});

  CopyOf(shared / "golden/text-untied-bf16");
  RewriteWeights([](auto& t) {
    for (auto& [name, x] : t) {
      if (name == "model.layers.0.self_attn.k_proj.weight") x = x.reshape({-1, 16}).contiguous();
    }
  });
  ExpectError(LoadStatus(), {"model.layers.0.self_attn.k_proj.weight", "has shape", "config implies"});

  CopyOf(shared / "golden/text-untied-bf16");
  RewriteWeights([](auto& t) {
    for (auto& [name, x] : t) {
      if (name == "model.norm.weight") x = x.to(at::kLong);
    }
  });
  ExpectError(LoadStatus(), {"model.norm.weight", "I64"});
}

TEST_F(ModelFolderTest, BadConfigsNameTheFileAndKey) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  CopyOf(shared / "golden/vlm-tied-bf16");
  std::ofstream(dir_ / "config.json") << "{\"hidden_size\": 64,";
  ExpectError(LoadStatus(), {"config.json", "not valid JSON"});

  CopyOf(shared / "golden/vlm-tied-bf16");
  EditConfig("config.json", [](auto& j) { j.erase("num_attention_heads"); });
  ExpectError(LoadStatus(), {"config.json", "\"num_attention_heads\"", "missing"});

  CopyOf(shared / "golden/vlm-tied-bf16");
  EditConfig("config.json", [](auto& j) { j["num_key_value_heads"] = 3; });
  ExpectError(LoadStatus(), {"config.json", "num_key_value_heads", "does not divide"});

  CopyOf(shared / "golden/vlm-tied-bf16");
  EditConfig("config.json", [](auto& j) { j["hidden_size"] = "64"; });
  ExpectError(LoadStatus(), {"hidden_size", "not an integer"});

  CopyOf(shared / "golden/vlm-tied-bf16");
  EditConfig("siglip-tiny/config.json", [](auto& j) { j["hidden_act"] = "relu"; });
  ExpectError(LoadStatus(), {"siglip-tiny/config.json", "hidden_act"});

  CopyOf(shared / "golden/vlm-tied-bf16");
  fs::remove_all(dir_ / "siglip-tiny");
  ExpectError(LoadStatus(), {"siglip-tiny/config.json", "missing"});

  CopyOf(shared / "golden/vlm-tied-bf16");
  EditConfig("config.json", [](auto& j) { j["image_token_index"] = 100000; });
  ExpectError(LoadStatus(), {"image_token_index", "outside the vocabulary"});

  CopyOf(shared / "golden/vlm-tied-bf16");
  std::ofstream(dir_ / "generation_config.json") << R"({"eos_token_id": [298, 5000]})";
  ExpectError(LoadStatus(), {"eos_token_id", "5000"});

  CopyOf(shared / "golden/vlm-tied-bf16");
  fs::remove(dir_ / "model.safetensors");
  ExpectError(LoadStatus(), {"no *.safetensors"});

  ExpectError(Mineru2Model::Load(dir_ / "nope", {}).status(), {"nope"});
}

TEST(ModelConfigTest, FullSizeExampleHasTheDocumentedDims) {
  const fs::path dir = ::mineru::testing::SourceDir() / "examples/mineru2-0.9b-config";
  auto c = ModelConfig::Load(dir);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->text.hidden_size, 896);
  EXPECT_EQ(c->text.num_layers, 24);
  EXPECT_EQ(c->text.head_dim, 64);
  EXPECT_EQ(c->text.num_kv_heads, 2);
  EXPECT_EQ(c->text.vocab_size, 151936);
  ASSERT_TRUE(c->multimodal.has_value());
  EXPECT_EQ(c->multimodal->image_token_index, 151646);
  EXPECT_EQ(c->multimodal->vision.hidden_size, 1152);
  EXPECT_EQ(c->multimodal->vision.num_layers, 27);
  EXPECT_EQ(c->multimodal->vision.num_used_layers, 26);
  EXPECT_EQ(c->multimodal->vision.patches_per_side, 27);
  EXPECT_EQ(c->generation.no_repeat_ngram_size, 100);
  // Sizes from the config alone: §8 of the model notes gives ~1.8-2.1 GB of bf16 weights.
  const uint64_t total = TotalBytes(UnitsFromConfig(*c, StorageDtype::kBF16, c->text.tie_word_embeddings));
  EXPECT_GT(total, 1'700'000'000u);
  EXPECT_LT(total, 2'200'000'000u);
}

}  // namespace
}  // namespace mineru::engine
