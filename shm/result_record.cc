#include "shm/result_record.h"

#include <cstring>

namespace mineru::shm {
namespace {

template <typename T>
void Put(uint8_t* out, uint64_t offset, T value) {
  std::memcpy(out + offset, &value, sizeof(T));
}
template <typename T>
T Get(const uint8_t* in, uint64_t offset) {
  T value;
  std::memcpy(&value, in + offset, sizeof(T));
  return value;
}

bool NeedsName(ResultKind kind) { return kind == ResultKind::kImageCrop || kind == ResultKind::kOutputFile; }

Status CheckKindAndRole(uint16_t kind, uint16_t role) {
  if (kind == 0 || kind > kMaxResultKind)
    return InvalidArgument("unknown result kind " + std::to_string(kind));
  if (role > kMaxOutputRole) return InvalidArgument("unknown output role " + std::to_string(role));
  const bool is_file = static_cast<ResultKind>(kind) == ResultKind::kOutputFile;
  if (is_file != (role != 0)) {
    return InvalidArgument(is_file ? "an output file record needs a role"
                                   : "only output file records have a role");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateResultName(std::string_view name, ResultKind kind) {
  if (name.size() > kMaxResultNameBytes) return InvalidArgument("result name longer than 255 bytes");
  if (name.empty()) {
    if (NeedsName(kind)) return InvalidArgument("image crops and output files need a file name");
    return Status::Ok();
  }
  if (name.front() == '.') return InvalidArgument("result name may not start with '.'");
  for (unsigned char c : name) {
    if (c == '/' || c == '\\' || c < 0x20 || c == 0x7f) {
      return InvalidArgument("result name contains a path separator or a control character");
    }
  }
  return Status::Ok();
}

Result<std::vector<uint8_t>> EncodeResultRecord(ResultKind kind, OutputRole role, uint64_t job_id,
                                                uint32_t page_index, std::string_view name,
                                                std::span<const uint8_t> data) {
  MINERU_RETURN_IF_ERROR(CheckKindAndRole(static_cast<uint16_t>(kind), static_cast<uint16_t>(role)));
  MINERU_RETURN_IF_ERROR(ValidateResultName(name, kind));
  std::vector<uint8_t> out(kResultRecordHeaderBytes + name.size() + data.size());
  uint8_t* p = out.data();
  Put<uint32_t>(p, 0, kResultRecordMagic);
  Put<uint16_t>(p, 4, static_cast<uint16_t>(kind));
  Put<uint16_t>(p, 6, static_cast<uint16_t>(role));
  Put<uint64_t>(p, 8, job_id);
  Put<uint32_t>(p, 16, page_index);
  Put<uint32_t>(p, 20, static_cast<uint32_t>(name.size()));
  Put<uint64_t>(p, 24, data.size());
  if (!name.empty()) std::memcpy(p + kResultRecordHeaderBytes, name.data(), name.size());
  if (!data.empty()) std::memcpy(p + kResultRecordHeaderBytes + name.size(), data.data(), data.size());
  return out;
}

Result<std::vector<uint8_t>> EncodeResultRecord(const ResultRecord& record) {
  return EncodeResultRecord(record.kind, record.role, record.job_id, record.page_index, record.name,
                            record.data);
}

Result<ResultRecordView> ParseResultRecord(std::span<const uint8_t> bytes) {
  if (bytes.size() < kResultRecordHeaderBytes) return DataLoss("result record shorter than its header");
  const uint8_t* p = bytes.data();
  if (Get<uint32_t>(p, 0) != kResultRecordMagic) return DataLoss("result record: bad magic");
  const uint16_t kind = Get<uint16_t>(p, 4);
  const uint16_t role = Get<uint16_t>(p, 6);
  MINERU_RETURN_IF_ERROR(CheckKindAndRole(kind, role));
  const uint32_t name_bytes = Get<uint32_t>(p, 20);
  const uint64_t data_bytes = Get<uint64_t>(p, 24);
  const uint64_t body = bytes.size() - kResultRecordHeaderBytes;
  if (name_bytes > kMaxResultNameBytes) return InvalidArgument("result record: name longer than 255 bytes");
  if (name_bytes > body || data_bytes != body - name_bytes) {
    return DataLoss("result record: sizes do not add up to the record's " + std::to_string(bytes.size()) +
                    " bytes");
  }
  ResultRecordView view{
      static_cast<ResultKind>(kind),
      static_cast<OutputRole>(role),
      Get<uint64_t>(p, 8),
      Get<uint32_t>(p, 16),
      std::string_view(reinterpret_cast<const char*>(p + kResultRecordHeaderBytes), name_bytes),
      bytes.subspan(kResultRecordHeaderBytes + name_bytes)};
  MINERU_RETURN_IF_ERROR(ValidateResultName(view.name, view.kind));
  return view;
}

}  // namespace mineru::shm
