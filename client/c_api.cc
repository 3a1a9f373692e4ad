// The C API (include/mineru/client_c.h) over the C++ client: version, connecting, errors, submitting,
// waiting and fetching. Nothing throws past these files: every entry point catches (allocation
// failures) and returns a negative code.
#include <optional>
#include <string>

#include "client/c_api_internal.h"
#include "mineru/version.h"

struct mineru_buffer {
  mineru::client::DocumentBuffer buffer;
};

struct mineru_result {
  std::vector<mineru::client::ResultFile> files;
};

namespace mineru::client::c_api {

std::string& ThreadLastError() {
  thread_local std::string message;
  return message;
}

}  // namespace mineru::client::c_api

namespace {

using namespace mineru::client::c_api;  // NOLINT(google-build-using-namespace): this file implements it

// The C++ submit options for a C options struct (defaults filled in for an older caller's struct).
int ToSubmitOptions(const mineru_submit_options* in, mineru::client::SubmitOptions* out) {
  mineru_submit_options o;
  mineru_submit_options_init(&o, sizeof o);
  if (int rc = ReadSized(in, kSubmitOptionsV1, &o); rc < 0) return rc;
  if (o.name == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  out->name = o.name;
  out->detach = o.detach != 0;
  if (o.backend != nullptr) out->backend = o.backend;
  out->first_page = o.first_page;
  out->last_page = o.last_page;
  return 0;
}

mineru_submit_options NamedOptions(const char* name, int detach) {
  mineru_submit_options o;
  mineru_submit_options_init(&o, sizeof o);
  o.name = name;
  o.detach = detach;
  return o;
}

}  // namespace

extern "C" {

const char* mineru_version(void) noexcept { return MINERU_VERSION_STRING; }
uint32_t mineru_version_number(void) noexcept { return MINERU_VERSION_NUMBER; }

int mineru_connect_options_init(mineru_connect_options* options, size_t struct_size) noexcept {
  if (options == nullptr || struct_size < kConnectOptionsV1) return -MINERU_ERR_INVALID_ARGUMENT;
  mineru_connect_options defaults{};
  defaults.struct_size = sizeof defaults;
  defaults.connect_timeout_ms = 5000;
  std::memset(static_cast<void*>(options), 0, struct_size);
  options->struct_size = struct_size;
  return WriteSized(defaults, kConnectOptionsV1, options);
}

int mineru_submit_options_init(mineru_submit_options* options, size_t struct_size) noexcept {
  if (options == nullptr || struct_size < kSubmitOptionsV1) return -MINERU_ERR_INVALID_ARGUMENT;
  mineru_submit_options defaults{};
  defaults.struct_size = sizeof defaults;
  defaults.last_page = UINT32_MAX;
  std::memset(static_cast<void*>(options), 0, struct_size);
  options->struct_size = struct_size;
  return WriteSized(defaults, kSubmitOptionsV1, options);
}

int mineru_client_connect_opts(const mineru_connect_options* options, mineru_client** out) noexcept {
  if (out == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  *out = nullptr;
  return Guard(nullptr, [&] {
    ThreadLastError().clear();
    mineru_connect_options o;
    mineru_connect_options_init(&o, sizeof o);
    if (ReadSized(options, kConnectOptionsV1, &o) < 0) {
      return Fail(nullptr,
                  mineru::InvalidArgument("mineru_connect_options: bad struct_size or unknown option"));
    }
    if ((o.flags & ~static_cast<unsigned>(MINERU_CONNECT_PAGE_RESULTS)) != 0) {
      return Fail(nullptr, mineru::InvalidArgument("unknown MINERU_CONNECT_* flags"));
    }
    mineru::client::ClientOptions co;
    co.client_name = o.client_name != nullptr ? o.client_name : "libmineru-client (C)";
    co.page_results = (o.flags & MINERU_CONNECT_PAGE_RESULTS) != 0;
    if (o.socket_path != nullptr) co.socket_path = o.socket_path;
    co.ring_bytes = o.ring_bytes;
    co.connect_timeout_ms = o.connect_timeout_ms;
    auto client = mineru::client::Client::Connect(co);
    if (!client.ok()) return Fail(nullptr, client.status());
    *out = new mineru_client{std::move(*client), {}, {}, {}, {}};
    return 0;
  });
}

int mineru_client_connect(const char* socket_path, mineru_client** out) noexcept {
  return mineru_client_connect_with(socket_path, 0, out);
}

int mineru_client_connect_with(const char* socket_path, unsigned flags, mineru_client** out) noexcept {
  mineru_connect_options o;
  mineru_connect_options_init(&o, sizeof o);
  o.socket_path = socket_path;
  o.flags = flags;
  return mineru_client_connect_opts(&o, out);
}

void mineru_client_close(mineru_client* client) noexcept { delete client; }

const char* mineru_client_last_error(const mineru_client* client) noexcept {
  return client == nullptr ? ThreadLastError().c_str() : client->last_error.c_str();
}

const char* mineru_client_strerror(int code) noexcept {
  switch (code < 0 ? -code : code) {
    case MINERU_OK:
      return "ok";
    case MINERU_ERR_INVALID_ARGUMENT:
      return "invalid argument";
    case MINERU_ERR_NOT_FOUND:
      return "not found";
    case MINERU_ERR_ALREADY_EXISTS:
      return "already exists";
    case MINERU_ERR_PERMISSION_DENIED:
      return "permission denied";
    case MINERU_ERR_RESOURCE_EXHAUSTED:
      return "resource exhausted";
    case MINERU_ERR_BUSY:
      return "busy, retry later";
    case MINERU_ERR_FAILED_PRECONDITION:
      return "failed precondition";
    case MINERU_ERR_OUT_OF_RANGE:
      return "out of range";
    case MINERU_ERR_CANCELLED:
      return "cancelled";
    case MINERU_ERR_DEADLINE_EXCEEDED:
      return "deadline exceeded";
    case MINERU_ERR_DATA_LOSS:
      return "data loss";
    case MINERU_ERR_UNAVAILABLE:
      return "minerud unavailable";
    case MINERU_ERR_UNIMPLEMENTED:
      return "not implemented";
    case MINERU_ERR_IO:
      return "I/O error";
    case MINERU_ERR_INTERNAL:
      return "internal error";
  }
  return "unknown error";
}

const char* mineru_client_daemon_version(const mineru_client* client) noexcept {
  return client == nullptr ? "" : client->client.daemon_version().c_str();
}

const char* mineru_client_socket_path(const mineru_client* client) noexcept {
  return client == nullptr ? "" : client->client.socket_path().c_str();
}

int mineru_client_ping(mineru_client* client, double* round_trip_us) noexcept {
  if (client == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  return Guard(client, [&] {
    auto rtt = client->client.Ping();
    if (!rtt.ok()) return Fail(client, rtt.status());
    if (round_trip_us != nullptr) *round_trip_us = *rtt;
    return 0;
  });
}

int mineru_client_submit_opts(mineru_client* client, const void* data, size_t size,
                              const mineru_submit_options* options, uint64_t* job_id) noexcept {
  if (client == nullptr || data == nullptr || job_id == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  return Guard(client, [&] {
    mineru::client::SubmitOptions so;
    if (ToSubmitOptions(options, &so) < 0) {
      return Fail(client, mineru::InvalidArgument(
                              "mineru_submit_options: no name, bad struct_size or unknown option"));
    }
    auto id = client->client.Submit(std::span(static_cast<const uint8_t*>(data), size), so);
    if (!id.ok()) return Fail(client, id.status());
    *job_id = *id;
    return 0;
  });
}

int mineru_client_submit(mineru_client* client, const void* data, size_t size, const char* name, int detach,
                         uint64_t* job_id) noexcept {
  const mineru_submit_options o = NamedOptions(name, detach);
  return mineru_client_submit_opts(client, data, size, &o, job_id);
}

int mineru_buffer_create(size_t size, mineru_buffer** out) noexcept {
  if (out == nullptr || size == 0) return -MINERU_ERR_INVALID_ARGUMENT;
  *out = nullptr;
  return Guard(nullptr, [&] {
    auto buffer = mineru::client::DocumentBuffer::Create(size);
    if (!buffer.ok()) return Fail(nullptr, buffer.status());
    *out = new mineru_buffer{std::move(*buffer)};
    return 0;
  });
}

void* mineru_buffer_data(mineru_buffer* buffer) noexcept {
  return buffer == nullptr ? nullptr : buffer->buffer.data().data();
}

void mineru_buffer_free(mineru_buffer* buffer) noexcept { delete buffer; }

int mineru_client_submit_buffer_opts(mineru_client* client, mineru_buffer* buffer,
                                     const mineru_submit_options* options, uint64_t* job_id) noexcept {
  if (client == nullptr || buffer == nullptr || job_id == nullptr) {
    delete buffer;
    return -MINERU_ERR_INVALID_ARGUMENT;
  }
  return Guard(client, [&] {
    mineru::client::SubmitOptions so;
    if (ToSubmitOptions(options, &so) < 0) {
      delete buffer;
      return Fail(client, mineru::InvalidArgument(
                              "mineru_submit_options: no name, bad struct_size or unknown option"));
    }
    auto id = client->client.Submit(std::move(buffer->buffer), so);
    delete buffer;
    if (!id.ok()) return Fail(client, id.status());
    *job_id = *id;
    return 0;
  });
}

int mineru_client_submit_buffer(mineru_client* client, mineru_buffer* buffer, const char* name, int detach,
                                uint64_t* job_id) noexcept {
  const mineru_submit_options o = NamedOptions(name, detach);
  return mineru_client_submit_buffer_opts(client, buffer, &o, job_id);
}

int mineru_client_wait(mineru_client* client, uint64_t job_id, mineru_progress_fn progress, void* user_data,
                       int64_t timeout_ms, int* state) noexcept {
  return mineru_client_wait_pages(client, job_id, progress, nullptr, user_data, timeout_ms, state);
}

int mineru_client_wait_pages(mineru_client* client, uint64_t job_id, mineru_progress_fn progress,
                             mineru_page_fn page, void* user_data, int64_t timeout_ms, int* state) noexcept {
  if (client == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  return Guard(client, [&] {
    std::function<void(const mineru::client::Progress&)> cb;
    if (progress != nullptr) {
      cb = [&](const mineru::client::Progress& p) {
        progress(user_data, p.job_id, p.pages_done, p.pages_total);
      };
    }
    std::function<void(const mineru::client::PageResult&)> on_page;
    if (page != nullptr) {
      on_page = [&](const mineru::client::PageResult& r) {
        const mineru_page view{r.job_id,
                               r.page_index,
                               r.markdown.data(),
                               r.markdown.size(),
                               r.content_list.data(),
                               r.content_list.size(),
                               r.model_output.data(),
                               r.model_output.size()};
        page(user_data, &view);
      };
    }
    auto status = client->client.Wait(job_id, cb, timeout_ms, on_page);
    if (!status.ok()) return Fail(client, status.status());
    if (state != nullptr) *state = static_cast<int>(status->state);
    if (status->state != mineru::client::JobState::kDone) client->last_error = status->error;
    return 0;
  });
}

int mineru_client_fetch(mineru_client* client, uint64_t job_id, mineru_result** out) noexcept {
  if (client == nullptr || out == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  *out = nullptr;
  return Guard(client, [&] {
    auto files = client->client.Fetch(job_id);
    if (!files.ok()) return Fail(client, files.status());
    *out = new mineru_result{std::move(*files)};
    return 0;
  });
}

size_t mineru_result_count(const mineru_result* result) noexcept {
  return result == nullptr ? 0 : result->files.size();
}

int mineru_result_get(const mineru_result* result, size_t index, mineru_result_file* file) noexcept {
  if (result == nullptr || file == nullptr || index >= result->files.size()) return -MINERU_ERR_OUT_OF_RANGE;
  const auto& f = result->files[index];
  file->path = f.path.c_str();
  file->data = f.data.data();
  file->size = f.data.size();
  return 0;
}

void mineru_result_free(mineru_result* result) noexcept { delete result; }

}  // extern "C"
