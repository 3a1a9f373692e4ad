// Result records: what the result ring carries from the daemon to the client, one record each.
//
//   offset  size  field
//   0       4     magic        kResultRecordMagic
//   4       2     kind         ResultKind
//   6       2     role         OutputRole (kNoRole unless kind is kOutputFile)
//   8       8     job_id
//   16      4     page_index   0-based, kNoPage for whole-document records
//   20      4     name_bytes   <= kMaxResultNameBytes
//   24      8     data_bytes
//   32      ...   name (UTF-8, name_bytes), then data (data_bytes); nothing after
//
// Names are file names the client may create under its output folder, so they are checked: not empty
// for image crops and output files, no '/', no NUL or control characters, not "." / "..", no leading
// '.'. The daemon never opens user paths; the client writes the files.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace mineru::shm {

inline constexpr uint32_t kResultRecordMagic = 0x52524D31;  // "1MRR"
inline constexpr uint64_t kResultRecordHeaderBytes = 32;
inline constexpr uint32_t kMaxResultNameBytes = 255;
inline constexpr uint32_t kNoPage = UINT32_MAX;

enum class ResultKind : uint16_t {
  kPageMarkdown = 1,      // the Markdown of one page
  kContentListItems = 2,  // JSON array: the content-list items of one page
  kMiddleJson = 3,        // JSON: the middle-JSON page object (or the whole document when page is kNoPage)
  kModelOutput = 4,       // the raw model output text of one page
  kImageCrop = 5,         // bytes of an image crop; name = the file name the Markdown links to
  kOutputFile = 6,        // a final output file; role says which, name its file name
};
inline constexpr uint16_t kMaxResultKind = 6;

enum class OutputRole : uint16_t {
  kNoRole = 0,
  kMarkdown = 1,     // NAME.md
  kContentList = 2,  // NAME_content_list.json
  kMiddleJson = 3,   // NAME_middle.json
  kModelOutput = 4,  // NAME_model_output.txt
  kLayoutPdf = 5,    // NAME_layout.pdf
};
inline constexpr uint16_t kMaxOutputRole = 5;

struct ResultRecord {
  ResultKind kind = ResultKind::kPageMarkdown;
  OutputRole role = OutputRole::kNoRole;
  uint64_t job_id = 0;
  uint32_t page_index = kNoPage;
  std::string name;
  std::vector<uint8_t> data;
};

// A view of a record inside a received buffer (no copy of the data).
struct ResultRecordView {
  ResultKind kind;
  OutputRole role;
  uint64_t job_id;
  uint32_t page_index;
  std::string_view name;
  std::span<const uint8_t> data;
};

// Checks a name as described above.
Status ValidateResultName(std::string_view name, ResultKind kind);

// Encodes header + name + data. Errors: kInvalidArgument (bad name, role on a non-file kind).
Result<std::vector<uint8_t>> EncodeResultRecord(const ResultRecord& record);
Result<std::vector<uint8_t>> EncodeResultRecord(ResultKind kind, OutputRole role, uint64_t job_id,
                                                uint32_t page_index, std::string_view name,
                                                std::span<const uint8_t> data);

// Parses and checks a record; the view points into `bytes`. Errors: kDataLoss (truncated, trailing
// bytes, bad magic), kInvalidArgument (unknown kind/role, bad name).
Result<ResultRecordView> ParseResultRecord(std::span<const uint8_t> bytes);

}  // namespace mineru::shm
