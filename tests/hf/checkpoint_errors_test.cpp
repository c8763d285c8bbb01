// Every checkpoint error: one line naming the file and the tensor (or key), what is wrong and, where
// it helps, what would be right.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/hf/hf_checkpoint.h"
#include "core/hf/hf_names.h"
#include "core/hf/hf_writer.h"
#include "tests/hf/hf_test_util.h"

namespace headroom::core::hf {
namespace {

using nlohmann::json;
using testing::config_of;
using testing::expect_error;
using testing::TempDir;

const char* kShard1 = "model-00001-of-00003.safetensors";
const char* kShard2 = "model-00002-of-00003.safetensors";

HfConfig gpt2() { return config_of(testing::gpt2_json()); }

json read_json(const std::string& path) { return json::parse(std::ifstream(path)); }
void write_json(const std::string& path, const json& j) { std::ofstream(path) << j.dump(); }

// A GPT-2 checkpoint in three shards; returns the index path.
std::string sharded_gpt2(const TempDir& dir) {
  write_tiny_checkpoint(dir.path(), gpt2(), 1, {"F32", 3});
  return dir.file(kIndexFileName);
}

// Some tensor the index places in `shard`.
std::string tensor_in(const std::string& index, const std::string& shard) {
  const json map = read_json(index)["weight_map"];
  for (auto& [name, file] : map.items())
    if (file == shard) return name;
  return "";
}

TEST(HfCheckpointErrors, NoCheckpointInDirectory) {
  TempDir dir;
  expect_error([&] { open_checkpoint(dir.file("absent")); }, {dir.file("absent"), "not a directory"});
  expect_error([&] { open_checkpoint(dir.path()); }, {dir.path() + ": no model.safetensors or " + kIndexFileName});
  dir.write("pytorch_model.bin", "PK");
  expect_error([&] { open_checkpoint(dir.path()); }, {"pytorch_model.bin is a torch pickle", "safe_serialization"});
}

TEST(HfCheckpointErrors, MissingShard) {
  TempDir dir;
  const std::string index = sharded_gpt2(dir);
  const std::string tensor = tensor_in(index, kShard2);
  std::filesystem::remove(dir.file(kShard2));
  expect_error([&] { open_checkpoint(dir.path()); },
               {index + ": tensor " + tensor + " is in shard " + kShard2 + ", which is missing from " + dir.path()});
}

// A name the file system refuses to look up (longer than NAME_MAX) is an error naming the index and
// the tensor, as a missing shard is; std::filesystem's own exception named neither (found by fuzzing).
TEST(HfCheckpointErrors, AShardNameTheFileSystemCannotLookUpIsRefusedByName) {
  TempDir dir;
  const std::string index = sharded_gpt2(dir);
  json j = read_json(index);
  const std::string tensor = tensor_in(index, kShard1), too_long(300, 'm');
  j["weight_map"][tensor] = too_long;
  write_json(index, j);
  expect_error([&] { open_checkpoint(dir.path()); },
               {index + ": tensor " + tensor + " is in shard " + too_long + ", which cannot be looked up in " +
                dir.path() + " (File name too long)"});
  expect_error([&] { open_checkpoint(dir.file(too_long)); },
               {dir.file(too_long) + ": cannot be looked up (File name too long)"});
}

TEST(HfCheckpointErrors, IndexedTensorAbsentFromItsShard) {
  TempDir dir;
  const std::string index = sharded_gpt2(dir);
  json j = read_json(index);
  const std::string tensor = tensor_in(index, kShard1);
  j["weight_map"][tensor] = kShard2;  // the index says shard 2; the tensor is in shard 1
  write_json(index, j);
  expect_error([&] { open_checkpoint(dir.path()); },
               {dir.file(kShard2) + ": has no tensor " + tensor + ", which " + kIndexFileName + " places there"});
}

TEST(HfCheckpointErrors, TensorInTwoShards) {
  TempDir dir;
  sharded_gpt2(dir);
  const StFile second = read_safetensors_file(dir.file(kShard2));
  const StTensor copy = second.tensors.front();
  testing::edit_safetensors(dir.file(kShard1), [&](StFile& f) { f.tensors.push_back(copy); });
  expect_error([&] { open_checkpoint(dir.path()); },
               {"tensor " + copy.name + " is stored twice", dir.file(kShard1), dir.file(kShard2)});
}

TEST(HfCheckpointErrors, BadIndex) {
  TempDir dir;
  const std::string index = sharded_gpt2(dir);
  dir.write(kIndexFileName, "{\"weight_map\": {");
  expect_error([&] { open_checkpoint(dir.path()); }, {index + ": not valid JSON"});
  dir.write(kIndexFileName, "{\"metadata\": {}}");
  expect_error([&] { open_checkpoint(dir.path()); }, {index + ": key 'weight_map' is missing or not an object"});
  dir.write(kIndexFileName, R"({"weight_map": {"wte.weight": 3}})");
  expect_error([&] { open_checkpoint(dir.path()); }, {index + ": weight_map entry for tensor wte.weight", "got 3"});
  dir.write(kIndexFileName, R"({"weight_map": {"wte.weight": "../elsewhere.safetensors"}})");
  expect_error([&] { open_checkpoint(dir.path()); }, {"wte.weight", "must be the file name of a shard"});
}

TEST(HfCheckpointErrors, TruncatedShard) {
  TempDir dir;
  sharded_gpt2(dir);
  const auto size = std::filesystem::file_size(dir.file(kShard1));
  std::filesystem::resize_file(dir.file(kShard1), size - 10);
  expect_error([&] { open_checkpoint(dir.path()); }, {dir.file(kShard1), "out of the data section", "truncated"});
  dir.write(kShard1, std::string("\x05\0\0\0\0\0\0\0{\"a\":", 13));
  expect_error([&] { open_checkpoint(dir.path()); }, {dir.file(kShard1), "header is not JSON"});
}

TEST(HfCheckpointErrors, MissingTensorNamesFileTensorShapeAndRole) {
  TempDir dir;
  write_tiny_checkpoint(dir.path(), gpt2(), 1);
  testing::edit_safetensors(dir.file(kSingleFileName),
                            [](StFile& f) { testing::remove_tensor(f, "h.1.attn.c_attn.weight"); });
  expect_error([&] { validate_checkpoint(open_checkpoint(dir.path()), gpt2()); },
               {dir.file(kSingleFileName) +
                ": missing tensor h.1.attn.c_attn.weight [16, 48] (GPT-2, layer 1's fused q/k/v projection)"});
}

TEST(HfCheckpointErrors, MissingTensorInShardedCheckpointNamesIndexAndPrefix) {
  TempDir dir;
  write_tiny_checkpoint(dir.path(), gpt2(), 1, {"F32", 3, true});
  const std::string index = dir.file(kIndexFileName), lost = "transformer.ln_f.bias";
  json j = read_json(index);
  const std::string shard = j["weight_map"][lost];
  j["weight_map"].erase(lost);
  write_json(index, j);
  testing::edit_safetensors(dir.file(shard), [&](StFile& f) { testing::remove_tensor(f, lost); });
  expect_error([&] { resolve_names(open_checkpoint(dir.path()), gpt2()); },
               {index + ": missing tensor transformer.ln_f.bias [16] (GPT-2's final layer norm shift)"});
}

TEST(HfCheckpointErrors, UntiedLlamaNeedsItsHead) {
  TempDir dir;
  const HfConfig config = config_of(testing::llama_json());
  write_tiny_checkpoint(dir.path(), config, 1);
  testing::edit_safetensors(dir.file(kSingleFileName), [](StFile& f) { testing::remove_tensor(f, "lm_head.weight"); });
  expect_error([&] { validate_checkpoint(open_checkpoint(dir.path()), config); },
               {"missing tensor lm_head.weight [33, 16] (Llama's output head)"});
}

TEST(HfCheckpointErrors, WrongShapeNamesExpectedAndFound) {
  TempDir dir;
  write_tiny_checkpoint(dir.path(), gpt2(), 1);
  testing::edit_safetensors(dir.file(kSingleFileName), [](StFile& f) {
    for (auto& t : f.tensors)
      if (t.name == "h.0.mlp.c_fc.weight") t.shape = {64, 16};  // nn.Linear's layout, not Conv1D's
  });
  expect_error([&] { validate_checkpoint(open_checkpoint(dir.path()), gpt2()); },
               {dir.file(kSingleFileName) + ": tensor h.0.mlp.c_fc.weight has shape [64, 16], expected [16, 64]",
                "GPT-2, layer 0's MLP input projection", "transpose"});
  // A config that disagrees with the tensors: the first tensor in model order is reported.
  json j = testing::gpt2_json();
  j["n_positions"] = 20;
  expect_error([&] { validate_checkpoint(open_checkpoint(dir.path()), config_of(j)); },
               {"tensor wpe.weight has shape [12, 16], expected [20, 16]", "position embedding"});
  WriteOptions options;
  options.write_tied_head = true;
  write_tiny_checkpoint(dir.path(), gpt2(), 1, options);
  testing::edit_safetensors(dir.file(kSingleFileName), [](StFile& f) {
    for (auto& t : f.tensors)
      if (t.name == "lm_head.weight") t.shape = {16, 37};
  });
  expect_error([&] { validate_checkpoint(open_checkpoint(dir.path()), gpt2()); },
               {"tensor lm_head.weight has shape [16, 37], expected [37, 16]", "output head"});
}

TEST(HfCheckpointErrors, UnsupportedDtypeNamesTensorAndDtype) {
  TempDir dir;
  const HfConfig config = config_of(testing::bert_json());
  WriteOptions options;
  options.buffers = true;  // embeddings.position_ids is I64
  write_tiny_checkpoint(dir.path(), config, 1, options);
  const std::string file = dir.file(kSingleFileName);
  expect_error([&] { open_checkpoint(dir.path()).load_f32("embeddings.position_ids"); },
               {file + ": tensor embeddings.position_ids is I64", "F32, F16, BF16 and F64"});
  testing::edit_safetensors(file, [](StFile& f) {
    for (auto& t : f.tensors)
      if (t.name == "encoder.layer.1.intermediate.dense.bias") t.dtype = "I32";  // same 4 bytes per value
  });
  expect_error([&] { validate_checkpoint(open_checkpoint(dir.path()), config); },
               {file + ": tensor encoder.layer.1.intermediate.dense.bias is I32", "BERT, layer 1's MLP input"});
  expect_error([&] { open_checkpoint(dir.path()).load_f32("absent"); }, {file + ": no tensor named absent"});
}

TEST(HfCheckpointErrors, WriterRefusesBadOptions) {
  TempDir dir;
  expect_error([&] { write_tiny_checkpoint(dir.path(), gpt2(), 1, {"I8", 1}); }, {"dtype I8"});
  expect_error([&] { write_tiny_checkpoint(dir.path(), gpt2(), 1, {"F32", 1000}); }, {"shards = 1000"});
}

}  // namespace
}  // namespace headroom::core::hf
