// Shared by the tokenizer file readers (not a public interface): file and JSON access whose errors
// name the file, and the special-token conventions of tokenizer_config.json.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <unordered_map>
#include <vector>

#include "core/text/added_tokens.h"
#include "core/text/bpe_tokenizer.h"
#include "core/text/text_tokenizer.h"

namespace headroom::core::text::files {

std::string read_file(const std::string& path);
bool file_exists(const std::string& path);
nlohmann::json read_json(const std::string& path);
// A JSON value for a message: strings quoted, long values cut.
std::string show(const nlohmann::json& value);

// A token -> id object (vocab.json, encoder.json, tokenizer.json's model.vocab) as spellings by id.
std::vector<std::string> vocab_from_json(const nlohmann::json& vocab, const std::string& where);

// The spellings' ids (the first id of a spelling listed twice).
std::unordered_map<std::string, int32_t> ids_of(const std::vector<std::string>& spellings);

// One merge rule "left right" as ids; `where` ("merges.txt line 17") starts each message.
BpeMerge resolve_merge(const std::string& left, const std::string& right,
                       const std::unordered_map<std::string, int32_t>& ids, const std::string& where,
                       const std::string& vocab_name);

// The ids of the special tokens in tokenizer_config.json / special_tokens_map.json form
// ({"eos_token": "</s>"} or {"eos_token": {"content": "</s>", ...}}), over `ids`; tokens the
// vocabulary lacks are left as they were.
void apply_special_token_config(const nlohmann::json& config, const std::string& path,
                                const std::unordered_map<std::string, int32_t>& vocab, SpecialTokenIds* ids);

// A boolean option of a config file, or `fallback` when absent or null.
bool config_bool(const nlohmann::json& config, const std::string& path, const std::string& key, bool fallback);

}  // namespace headroom::core::text::files
