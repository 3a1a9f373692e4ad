#include "engine/infer_options.h"

#include <charconv>

#include "common/config_loader.h"

namespace mineru::engine {

const char kInferUsage[] =
    "usage: mineru-infer --model DIR (--prompt TEXT | --tokens IDS) [--image PAGE.png | --pixels "
    "P.safetensors\n"
    "                    --image-size W,H] [--generate N] [--no-repeat-ngram N] [--logits-out "
    "F.safetensors]\n"
    "                    [--vram-budget BYTES|P%] [--kv-page-tokens N] [--prefill-chunk N] [--dtype "
    "f32|bf16]\n"
    "                    [--threads N]\n"
    "Runs a MinerU 2.0 (or Qwen2) checkpoint on one prompt and prints one JSON object: prompt_tokens,\n"
    "image_tokens, generated ids, decoded text (when the model folder has a tokenizer), timings.\n"
    "  --tokens IDS        comma-separated token ids; the image token marks where the image goes\n"
    "  --pixels P          safetensors with key pixel_values [crops, 3, S, S] (base view + tiles);\n"
    "                      a file with more crops than the grid needs gives its first 1 + gw*gh\n"
    "  --image-size W,H    the page size in pixels the crops were cut from (chooses the tile grid)\n"
    "  --generate N        greedy new tokens (default 0: prefill only); stops at EOS\n"
    "  --no-repeat-ngram N ban repeated n-grams over generated tokens (default: the checkpoint's, 100)\n"
    "  --logits-out F      float32 prompt_logits [spliced length, vocab] and step_logits [generated, vocab]\n"
    "  --vram-budget B     bytes (or P% of the weights) kept resident; the rest stays on disk\n"
    "                      (default: all of them). Every run goes through the residency manager: its\n"
    "                      GPU budget adds the KV pages and the decoder's workspace to B (B is raised\n"
    "                      to the largest weight unit)\n"
    "  --kv-page-tokens N  KV cache page size in tokens (default 16)\n"
    "  --prefill-chunk N   prefill chunk in tokens (default 512)\n"
    "  --dtype f32|bf16    compute dtype (default f32; weights are upcast exactly). bf16 on a CPU:\n"
    "                      bf16 operands, float32 sums, one rounding per product, as a GPU computes\n"
    "  --threads N         CPU threads for libtorch (default: one per CPU it may use)\n";

namespace {

Result<int64_t> ParseInt(const std::string& flag, const std::string& v, int64_t min, int64_t max) {
  int64_t x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size())
    return InvalidArgument(flag + ": \"" + v + "\" is not an integer");
  if (x < min || x > max) {
    return InvalidArgument(flag + ": " + v + " is outside " + std::to_string(min) + ".." +
                           std::to_string(max));
  }
  return x;
}

Result<std::vector<int64_t>> ParseIntList(const std::string& flag, const std::string& v, size_t max_items) {
  std::vector<int64_t> out;
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    if (comma == std::string::npos) comma = v.size();
    std::string item = v.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    MINERU_ASSIGN_OR_RETURN(int64_t x, ParseInt(flag, item, 0, INT32_MAX));
    out.push_back(x);
    if (out.size() > max_items)
      return InvalidArgument(flag + ": more than " + std::to_string(max_items) + " values");
    start = comma + 1;
  }
  return out;
}

}  // namespace

Result<InferOptions> ParseInferOptions(const std::vector<std::string>& args) {
  InferOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      o.help = true;
      return o;
    }
    if (a.rfind("--", 0) != 0) return InvalidArgument("unexpected argument \"" + a + "\"");
    if (i + 1 >= args.size()) return InvalidArgument(a + " needs a value");
    const std::string& v = args[++i];
    if (a == "--model") {
      o.model_dir = v;
    } else if (a == "--prompt") {
      o.prompt = v;
    } else if (a == "--tokens") {
      MINERU_ASSIGN_OR_RETURN(o.tokens, ParseIntList(a, v, 1 << 20));
    } else if (a == "--image") {
      o.image_path = v;
    } else if (a == "--pixels") {
      o.pixels_path = v;
    } else if (a == "--image-size") {
      MINERU_ASSIGN_OR_RETURN(std::vector<int64_t> wh, ParseIntList(a, v, 2));
      if (wh.size() != 2 || wh[0] < 1 || wh[1] < 1)
        return InvalidArgument("--image-size: expected W,H (positive)");
      o.image_width = wh[0];
      o.image_height = wh[1];
    } else if (a == "--generate") {
      MINERU_ASSIGN_OR_RETURN(o.generate, ParseInt(a, v, 0, 1 << 20));
    } else if (a == "--no-repeat-ngram") {
      MINERU_ASSIGN_OR_RETURN(o.no_repeat_ngram, ParseInt(a, v, 0, 1 << 20));
    } else if (a == "--logits-out") {
      o.logits_out = v;
    } else if (a == "--vram-budget") {
      if (!v.empty() && v.back() == '%') {
        MINERU_ASSIGN_OR_RETURN(int64_t pct, ParseInt(a, v.substr(0, v.size() - 1), 0, 100));
        o.vram_budget_fraction = pct / 100.0;
      } else {
        auto b = ParseByteSize(v);
        if (!b.ok()) return b.status().WithContext("--vram-budget");
        o.vram_budget_bytes = *b;
      }
    } else if (a == "--kv-page-tokens") {
      MINERU_ASSIGN_OR_RETURN(o.kv_page_tokens, ParseInt(a, v, 1, 1 << 20));
    } else if (a == "--prefill-chunk") {
      MINERU_ASSIGN_OR_RETURN(o.prefill_chunk, ParseInt(a, v, 1, 1 << 20));
    } else if (a == "--dtype") {
      if (v != "f32" && v != "bf16") return InvalidArgument("--dtype: \"" + v + "\"; expected f32 or bf16");
      o.dtype = v;
    } else if (a == "--threads") {
      MINERU_ASSIGN_OR_RETURN(o.threads, ParseInt(a, v, 1, 1024));
    } else {
      return InvalidArgument("unknown flag " + a);
    }
  }
  if (o.model_dir.empty()) return InvalidArgument("--model DIR is required");
  if (o.prompt.has_value() == o.tokens.has_value())
    return InvalidArgument("give exactly one of --prompt and --tokens");
  if (o.tokens && o.tokens->empty()) return InvalidArgument("--tokens: empty");
  if (o.image_path && o.pixels_path) return InvalidArgument("give at most one of --image and --pixels");
  if (o.pixels_path && o.image_width == 0) return InvalidArgument("--pixels needs --image-size W,H");
  if (!o.pixels_path && !o.image_path && o.image_width != 0)
    return InvalidArgument("--image-size without --pixels");
  return o;
}

}  // namespace mineru::engine
