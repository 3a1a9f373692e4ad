#include "common/config_loader.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace mineru {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits "12.5GiB" into 12.5 and "gib". Fails on an empty or malformed number.
bool SplitNumber(std::string_view text, double* number, std::string* suffix) {
  text = Trim(text);
  size_t i = 0;
  bool digits = false, dot = false;
  while (i < text.size()) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
    ++i;
  }
  if (!digits) return false;
  std::string num(text.substr(0, i));
  char* end = nullptr;
  errno = 0;
  *number = std::strtod(num.c_str(), &end);
  if (errno != 0 || end != num.c_str() + num.size()) return false;
  *suffix = Lower(Trim(text.substr(i)));
  return true;
}

}  // namespace

Result<uint64_t> ParseByteSize(std::string_view text) {
  double number = 0;
  std::string suffix;
  auto bad = [&] {
    return InvalidArgument("'" + std::string(text) +
                           "' is not a size (expected bytes or a number with K, M, G or T, e.g. 6G)");
  };
  if (!SplitNumber(text, &number, &suffix)) return bad();
  double scale = 1;
  if (suffix.empty() || suffix == "b")
    scale = 1;
  else if (suffix == "k" || suffix == "kb" || suffix == "kib")
    scale = 1024.0;
  else if (suffix == "m" || suffix == "mb" || suffix == "mib")
    scale = 1024.0 * 1024;
  else if (suffix == "g" || suffix == "gb" || suffix == "gib")
    scale = 1024.0 * 1024 * 1024;
  else if (suffix == "t" || suffix == "tb" || suffix == "tib")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    return bad();
  double bytes = number * scale;
  if (bytes >= 18446744073709551615.0) return OutOfRange("size '" + std::string(text) + "' is too large");
  return static_cast<uint64_t>(std::llround(bytes));
}

Result<int64_t> ParseDurationMillis(std::string_view text) {
  double number = 0;
  std::string suffix;
  auto bad = [&] {
    return InvalidArgument("'" + std::string(text) +
                           "' is not a duration (expected e.g. 250ms, 30s, 5m, 2h, 1d)");
  };
  if (!SplitNumber(text, &number, &suffix)) return bad();
  double ms_per_unit = 0;
  if (suffix.empty() || suffix == "s" || suffix == "sec")
    ms_per_unit = 1000;
  else if (suffix == "ms")
    ms_per_unit = 1;
  else if (suffix == "m" || suffix == "min")
    ms_per_unit = 60'000;
  else if (suffix == "h")
    ms_per_unit = 3'600'000;
  else if (suffix == "d")
    ms_per_unit = 86'400'000;
  else
    return bad();
  double ms = number * ms_per_unit;
  if (ms > 9.2e18) return OutOfRange("duration '" + std::string(text) + "' is too long");
  return static_cast<int64_t>(std::llround(ms));
}

Result<bool> ParseBool(std::string_view text) {
  std::string v = Lower(Trim(text));
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  return InvalidArgument("'" + std::string(text) + "' is not a boolean (expected true or false)");
}

Result<int64_t> ParseInt(std::string_view text, int64_t min, int64_t max) {
  std::string v(Trim(text));
  if (v.empty()) return InvalidArgument("empty value where an integer was expected");
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(v.c_str(), &end, 10);  // NOLINT(google-runtime-int)
  if (errno != 0 || end != v.c_str() + v.size()) {
    return InvalidArgument("'" + v + "' is not an integer");
  }
  if (n < min || n > max) {
    return OutOfRange("'" + v + "' is out of range [" + std::to_string(min) + ", " + std::to_string(max) +
                      "]");
  }
  return static_cast<int64_t>(n);
}

std::string FormatDurationMillis(int64_t ms) {
  if (ms == 0) return "0s";
  static const std::pair<int64_t, const char*> kUnits[] = {
      {86'400'000, "d"}, {3'600'000, "h"}, {60'000, "m"}, {1'000, "s"}};
  for (const auto& [unit_ms, suffix] : kUnits) {
    if (ms % unit_ms == 0) return std::to_string(ms / unit_ms) + suffix;
  }
  return std::to_string(ms) + "ms";
}

std::string FormatByteSizeExact(uint64_t bytes) {
  static const char* const kUnits[] = {"T", "G", "M", "K"};
  for (int i = 0; i < 4; ++i) {
    const uint64_t unit = 1ull << (10 * (4 - i));
    if (bytes != 0 && bytes % unit == 0) return std::to_string(bytes / unit) + kUnits[i];
  }
  return std::to_string(bytes);
}

std::string FormatByteSize(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "K", "M", "G", "T"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024.0 && unit < 4) {
    v /= 1024.0;
    ++unit;
  }
  char buf[32];
  if (unit == 0)
    std::snprintf(buf, sizeof buf, "%lluB", static_cast<unsigned long long>(bytes));  // NOLINT
  else if (v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f%s", v, kUnits[unit]);
  else
    std::snprintf(buf, sizeof buf, "%.1f%s", v, kUnits[unit]);
  return buf;
}

namespace internal {

void ConfigSchemaBase::AddKey(std::string key, std::string type, std::string help, Setter setter,
                              Getter getter) {
  keys_.push_back({std::move(key), std::move(type), std::move(help)});
  setters_.push_back(std::move(setter));
  getters_.push_back(std::move(getter));
}

std::vector<std::pair<std::string, std::string>> ConfigSchemaBase::FormatFrom(const void* config) const {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < keys_.size(); ++i) out.emplace_back(keys_[i].key, getters_[i](config));
  return out;
}

bool ConfigSchemaBase::HasKey(std::string_view key) const {
  for (const auto& k : keys_) {
    if (k.key == key) return true;
  }
  return false;
}

Status ConfigSchemaBase::SetInto(std::string_view key, std::string_view value, std::string_view source,
                                 void* config) const {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i].key != key) continue;
    Status st = setters_[i](config, value);
    if (!st.ok()) {
      return Status(st.code(), std::string(source) + ": key '" + std::string(key) + "': " + st.message());
    }
    return Status::Ok();
  }
  return InvalidArgument(std::string(source) + ": unknown key '" + std::string(key) + "'");
}

Status ConfigSchemaBase::LoadTextInto(std::string_view text, std::string_view source_name,
                                      void* config) const {
  std::set<std::string, std::less<>> seen;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);

    std::string where = std::string(source_name) + ":" + std::to_string(line_no);
    // Strip a comment: '#' at the start or after whitespace, outside quotes.
    bool in_quotes = false;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '"') in_quotes = !in_quotes;
      if (line[i] == '#' && !in_quotes && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
        line = line.substr(0, i);
        break;
      }
    }
    line = Trim(line);
    if (line.empty()) continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument(where + ": expected 'key = value', got '" + std::string(line) + "'");
    }
    std::string_view key = Trim(line.substr(0, eq));
    std::string_view value = Trim(line.substr(eq + 1));
    if (key.empty()) return InvalidArgument(where + ": missing key before '='");
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    } else if (!value.empty() && (value.front() == '"' || value.back() == '"')) {
      return InvalidArgument(where + ": key '" + std::string(key) + "': unbalanced quotes");
    }
    if (!seen.insert(std::string(key)).second && HasKey(key)) {
      return InvalidArgument(where + ": key '" + std::string(key) + "' is set twice");
    }
    MINERU_RETURN_IF_ERROR(SetInto(key, value, where, config));
  }
  return Status::Ok();
}

Status ConfigSchemaBase::LoadFileInto(const std::string& path, void* config) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoStatus(errno != 0 ? errno : ENOENT, "cannot read config file " + path);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return ErrnoStatus(errno != 0 ? errno : EIO, "cannot read config file " + path);
  return LoadTextInto(buf.str(), path, config);
}

}  // namespace internal
}  // namespace mineru
