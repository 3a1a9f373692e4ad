// A model folder of random weights: its tokenizer decodes every id of the vocabulary (so whatever such a
// model writes reads back as text) with MinerU's markers where the config puts them, and the folder
// opens as a MinerU 2.0 model with the config's tensors.
#include "engine/dummy_model_folder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/dummy_tokenizer.h"
#include "engine/mineru2_model.h"
#include "engine/model_config.h"
#include "engine/model_units.h"
#include "engine/tokenizer.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

namespace fs = std::filesystem;

TEST(DummyTokenizerTest, EveryIdDecodesAndTheMarkersSitWhereTheConfigPutsThem) {
  auto json = DummyTokenizerJson(300, 298, 299);
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  auto tokenizer = Tokenizer::FromJson(*json, "dummy");
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  for (int32_t id = 0; id < 300; ++id) {
    const int32_t one[] = {id};
    EXPECT_TRUE((*tokenizer)->Decode(one).ok()) << "id " << id;
  }
  auto text = [&](std::vector<int32_t> ids) { return *(*tokenizer)->Decode(ids); };
  EXPECT_EQ(text({298}), "<|im_end|>");
  EXPECT_EQ(text({299}), "<image>");
  EXPECT_EQ(text({256}), "<|endoftext|>");
  EXPECT_EQ(text({258}), "<|box_start|>");
  EXPECT_EQ(text({270}), "g270");
  EXPECT_EQ(text({'a', 'b', ' ', 0xe4, 0xb8, 0xad}), "ab \xe4\xb8\xad");
  auto ids = (*tokenizer)->Encode("a<image>\n");
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_EQ(*ids, (std::vector<int32_t>{'a', 299, '\n'}));
}

TEST(DummyTokenizerTest, IdsThatCollideWithTheAlphabetOrLeaveTheVocabularyAreRefused) {
  EXPECT_FALSE(DummyTokenizerJson(300, 100, 299).ok());  // inside the byte alphabet
  EXPECT_FALSE(DummyTokenizerJson(300, 260, 299).ok());  // on MinerU's markers
  EXPECT_FALSE(DummyTokenizerJson(300, 298, 300).ok());  // past the vocabulary
}

TEST(DummyModelFolderTest, TheFolderOpensAsTheConfigsModel) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const fs::path config_dir = shared / "golden/vlm-tied-bf16";
  const fs::path out = fs::temp_directory_path() / ("dummy_model_folder_test." + std::to_string(::getpid()));
  ASSERT_TRUE(WriteDummyModelFolder(config_dir, out, StorageDtype::kBF16, 7).ok());
  auto config = ModelConfig::Load(out);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto ours = Checkpoint::Open(out);
  auto theirs = Checkpoint::Open(config_dir);
  ASSERT_TRUE(ours.ok() && theirs.ok());
  auto our_units = ListModelUnits(*ours, *config);
  auto their_units = ListModelUnits(*theirs, *config);
  ASSERT_TRUE(our_units.ok()) << our_units.status().ToString();
  ASSERT_TRUE(their_units.ok()) << their_units.status().ToString();
  ASSERT_EQ(our_units->size(), their_units->size());
  for (size_t i = 0; i < our_units->size(); ++i) {
    EXPECT_EQ((*our_units)[i].name, (*their_units)[i].name);
    EXPECT_EQ((*our_units)[i].size_bytes, (*their_units)[i].size_bytes) << (*our_units)[i].name;
  }
  auto model = Mineru2Model::Load(out, ModelOptions{});
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  auto tokenizer = Tokenizer::FromFile(out / "tokenizer.json");
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  fs::remove_all(out);
}

}  // namespace
}  // namespace mineru::engine
