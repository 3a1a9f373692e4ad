// A typed configuration loader: one struct, filled from a `key = value` file and then from
// command-line overrides. Every key is declared once, with its type and a line of help; unknown
// keys, duplicate keys and bad values are errors that name the file, line and key.
//
// File syntax: one `key = value` per line; `#` starts a comment (at the start of a line or after
// whitespace); values may be double-quoted; blank lines are ignored.
//
//   ConfigSchema<Config> schema;
//   schema.Bytes("vram_budget", &Config::vram_budget_bytes, "GPU memory minerud may use");
//   MINERU_RETURN_IF_ERROR(schema.LoadFile("/etc/minerud.conf", &config));
//   MINERU_RETURN_IF_ERROR(schema.Override("vram_budget", "6G", "--vram-budget", &config));
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace mineru {

// Value parsers, shared by the loader and by tools that take the same formats on their command line.
// Sizes: "1048576", "512K", "6G", "1.5GiB", "2TB" (K/M/G/T are powers of 1024; "B" optional).
Result<uint64_t> ParseByteSize(std::string_view text);
// Durations to milliseconds: "250ms", "30s", "5m", "2h", "1d"; a bare number is seconds.
Result<int64_t> ParseDurationMillis(std::string_view text);
// "true/false", "yes/no", "on/off", "1/0".
Result<bool> ParseBool(std::string_view text);
Result<int64_t> ParseInt(std::string_view text, int64_t min, int64_t max);
// "6G" style text for a byte count, for --help and messages.
std::string FormatByteSize(uint64_t bytes);
// Exact: "6G" when a whole number of a unit, else the bare byte count; ParseByteSize reads it back.
std::string FormatByteSizeExact(uint64_t bytes);
// "30s" style text for a duration that ParseDurationMillis reads back to the same value.
std::string FormatDurationMillis(int64_t ms);

struct ConfigKeyInfo {
  std::string key;
  std::string type;  // "size", "duration", "bool", "integer", "string", "path"
  std::string help;
};

namespace internal {
// The type-erased part of the schema: parsing files and dispatching keys.
class ConfigSchemaBase {
 public:
  using Setter = std::function<Status(void* config, std::string_view value)>;
  using Getter = std::function<std::string(const void* config)>;

  const std::vector<ConfigKeyInfo>& keys() const { return keys_; }
  bool HasKey(std::string_view key) const;

 protected:
  void AddKey(std::string key, std::string type, std::string help, Setter setter, Getter getter);
  std::vector<std::pair<std::string, std::string>> FormatFrom(const void* config) const;
  Status LoadTextInto(std::string_view text, std::string_view source_name, void* config) const;
  Status LoadFileInto(const std::string& path, void* config) const;
  Status SetInto(std::string_view key, std::string_view value, std::string_view source, void* config) const;

 private:
  std::vector<ConfigKeyInfo> keys_;
  std::vector<Setter> setters_;
  std::vector<Getter> getters_;
};
}  // namespace internal

template <typename T>
class ConfigSchema : public internal::ConfigSchemaBase {
 public:
  ConfigSchema& Bytes(std::string key, uint64_t T::*field, std::string help) {
    AddKey(
        std::move(key), "size", std::move(help),
        [field](void* c, std::string_view v) -> Status {
          MINERU_ASSIGN_OR_RETURN(static_cast<T*>(c)->*field, ParseByteSize(v));
          return Status::Ok();
        },
        [field](const void* c) { return FormatByteSizeExact(static_cast<const T*>(c)->*field); });
    return *this;
  }
  ConfigSchema& Millis(std::string key, int64_t T::*field, std::string help) {
    AddKey(
        std::move(key), "duration", std::move(help),
        [field](void* c, std::string_view v) -> Status {
          MINERU_ASSIGN_OR_RETURN(static_cast<T*>(c)->*field, ParseDurationMillis(v));
          return Status::Ok();
        },
        [field](const void* c) { return FormatDurationMillis(static_cast<const T*>(c)->*field); });
    return *this;
  }
  ConfigSchema& Bool(std::string key, bool T::*field, std::string help) {
    AddKey(
        std::move(key), "bool", std::move(help),
        [field](void* c, std::string_view v) -> Status {
          MINERU_ASSIGN_OR_RETURN(static_cast<T*>(c)->*field, ParseBool(v));
          return Status::Ok();
        },
        [field](const void* c) { return std::string(static_cast<const T*>(c)->*field ? "true" : "false"); });
    return *this;
  }
  ConfigSchema& Int(std::string key, int64_t T::*field, int64_t min, int64_t max, std::string help) {
    AddKey(
        std::move(key), "integer", std::move(help),
        [field, min, max](void* c, std::string_view v) -> Status {
          MINERU_ASSIGN_OR_RETURN(static_cast<T*>(c)->*field, ParseInt(v, min, max));
          return Status::Ok();
        },
        [field](const void* c) { return std::to_string(static_cast<const T*>(c)->*field); });
    return *this;
  }
  // `check` may reject a value (return a non-OK status explaining why); empty = anything goes.
  ConfigSchema& String(std::string key, std::string T::*field, std::string help,
                       std::function<Status(std::string_view)> check = {}, std::string type = "string") {
    AddKey(
        std::move(key), std::move(type), std::move(help),
        [field, check](void* c, std::string_view v) -> Status {
          if (check) MINERU_RETURN_IF_ERROR(check(v));
          static_cast<T*>(c)->*field = std::string(v);
          return Status::Ok();
        },
        [field](const void* c) {
          const std::string& v = static_cast<const T*>(c)->*field;
          return v.empty() ? std::string("\"\"") : v;
        });
    return *this;
  }
  ConfigSchema& Path(std::string key, std::string T::*field, std::string help) {
    return String(std::move(key), field, std::move(help), {}, "path");
  }

  // Every key with its value in `config`, in declaration order, as the file syntax writes it (sizes
  // "512M", durations "30s", an empty string "\"\""): what `minerud --check-config` prints.
  std::vector<std::pair<std::string, std::string>> Format(const T& config) const {
    return FormatFrom(&config);
  }

  // Reads a config file into `config`. Keys absent from the file keep their current values.
  Status LoadFile(const std::string& path, T* config) const { return LoadFileInto(path, config); }
  // Parses config text; `source_name` names it in errors (a file name, "<test>").
  Status LoadText(std::string_view text, std::string_view source_name, T* config) const {
    return LoadTextInto(text, source_name, config);
  }
  // Sets one key; `source` names where the value came from in errors (e.g. "--vram-budget").
  Status Override(std::string_view key, std::string_view value, std::string_view source, T* config) const {
    return SetInto(key, value, source, config);
  }
  // "key=value", as given to --set.
  Status OverrideAssignment(std::string_view assignment, T* config) const {
    auto eq = assignment.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument("--set expects key=value, got '" + std::string(assignment) + "'");
    }
    return SetInto(Trim(assignment.substr(0, eq)), Trim(assignment.substr(eq + 1)), "--set", config);
  }

 private:
  static std::string_view Trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  }
};

}  // namespace mineru
