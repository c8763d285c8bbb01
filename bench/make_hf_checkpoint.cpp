// Writes a Hugging Face checkpoint with random weights (the project's own writer, transformers'
// names and layouts): a real model's shape for bench/run_model_bench.sh (measuring the import and the
// lab needs the shape, not the trained values), or a tiny one with a WordPiece vocabulary for the
// lab's window tests (tests/lab/real_model_test.sh).
//   make_hf_checkpoint gpt2-small OUT_DIR   GPT-2 small: 12 layers, d 768, 12 heads, V 50257, n 1024
//   make_hf_checkpoint tiny-llama OUT_DIR   2 layers, d 16, 4 heads over 2 key/value heads, V 33, + vocab.txt
#include <fstream>
#include <iostream>
#include <string>

#include "core/hf/hf_config.h"
#include "core/hf/hf_writer.h"

int main(int argc, char** argv) {
  namespace hf = headroom::core::hf;
  const std::string preset = argc == 3 ? argv[1] : "";
  nlohmann::json config;
  if (preset == "gpt2-small") {
    config = {{"model_type", "gpt2"}, {"vocab_size", 50257}, {"n_embd", 768},
              {"n_layer", 12},        {"n_head", 12},        {"n_positions", 1024}};
  } else if (preset == "tiny-llama") {
    config = {{"model_type", "llama"},    {"vocab_size", 33},
              {"hidden_size", 16},        {"num_hidden_layers", 2},
              {"num_attention_heads", 4}, {"num_key_value_heads", 2},
              {"intermediate_size", 24},  {"max_position_embeddings", 64}};
  } else {
    std::cerr << "usage: make_hf_checkpoint gpt2-small|tiny-llama OUT_DIR\n";
    return 2;
  }
  const std::string dir = argv[2];
  try {
    hf::write_tiny_checkpoint(dir, hf::parse_hf_config(config, preset), 1);
    if (preset == "tiny-llama") {  // a WordPiece vocabulary of its 33 ids, so the lab can read a sentence
      std::ofstream vocab(dir + "/vocab.txt");
      vocab << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nin\nthe\nbeginning\ngod\ncreated\nheaven\nand\nearth\n";
      for (int i = 13; i < 33; ++i) vocab << "w" << i << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "make_hf_checkpoint: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
