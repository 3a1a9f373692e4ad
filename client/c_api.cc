// The C API (include/mineru/client_c.h) over the C++ client. Nothing throws past this file: every
// entry point catches (allocation failures) and returns a negative code.
#include "mineru/client_c.h"

#include <new>
#include <optional>
#include <string>

#include "mineru/client.h"

struct mineru_client {
  mineru::client::Client client;
  std::string last_error;
};

struct mineru_buffer {
  mineru::client::DocumentBuffer buffer;
};

struct mineru_result {
  std::vector<mineru::client::ResultFile> files;
};

namespace {

int Code(const mineru::Status& s) { return s.ok() ? 0 : -static_cast<int>(s.code()); }

int Fail(mineru_client* c, const mineru::Status& s) {
  if (c != nullptr) c->last_error = s.message();
  return Code(s);
}

template <typename F>
int Guard(mineru_client* c, F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    if (c != nullptr) c->last_error = "out of memory";
    return -MINERU_ERR_RESOURCE_EXHAUSTED;
  } catch (...) {
    if (c != nullptr) c->last_error = "internal error";
    return -MINERU_ERR_INTERNAL;
  }
}

}  // namespace

extern "C" {

int mineru_client_connect(const char* socket_path, mineru_client** out) noexcept {
  return mineru_client_connect_with(socket_path, 0, out);
}

int mineru_client_connect_with(const char* socket_path, unsigned flags, mineru_client** out) noexcept {
  if (out == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  *out = nullptr;
  if ((flags & ~static_cast<unsigned>(MINERU_CONNECT_PAGE_RESULTS)) != 0) return -MINERU_ERR_INVALID_ARGUMENT;
  return Guard(nullptr, [&] {
    mineru::client::ClientOptions options;
    options.client_name = "libmineru-client (C)";
    options.page_results = (flags & MINERU_CONNECT_PAGE_RESULTS) != 0;
    if (socket_path != nullptr) options.socket_path = socket_path;
    auto client = mineru::client::Client::Connect(options);
    if (!client.ok()) return Code(client.status());
    *out = new mineru_client{std::move(*client), {}};
    return 0;
  });
}

void mineru_client_close(mineru_client* client) noexcept { delete client; }

const char* mineru_client_last_error(const mineru_client* client) noexcept {
  return client == nullptr ? "" : client->last_error.c_str();
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

int mineru_client_submit(mineru_client* client, const void* data, size_t size, const char* name, int detach,
                         uint64_t* job_id) noexcept {
  if (client == nullptr || data == nullptr || name == nullptr || job_id == nullptr)
    return -MINERU_ERR_INVALID_ARGUMENT;
  return Guard(client, [&] {
    mineru::client::SubmitOptions options;
    options.name = name;
    options.detach = detach != 0;
    auto id = client->client.Submit(std::span(static_cast<const uint8_t*>(data), size), options);
    if (!id.ok()) return Fail(client, id.status());
    *job_id = *id;
    return 0;
  });
}

int mineru_buffer_create(size_t size, mineru_buffer** out) noexcept {
  if (out == nullptr || size == 0) return -MINERU_ERR_INVALID_ARGUMENT;
  *out = nullptr;
  return Guard(nullptr, [&] {
    auto buffer = mineru::client::DocumentBuffer::Create(size);
    if (!buffer.ok()) return Code(buffer.status());
    *out = new mineru_buffer{std::move(*buffer)};
    return 0;
  });
}

void* mineru_buffer_data(mineru_buffer* buffer) noexcept {
  return buffer == nullptr ? nullptr : buffer->buffer.data().data();
}

void mineru_buffer_free(mineru_buffer* buffer) noexcept { delete buffer; }

int mineru_client_submit_buffer(mineru_client* client, mineru_buffer* buffer, const char* name, int detach,
                                uint64_t* job_id) noexcept {
  if (client == nullptr || buffer == nullptr || name == nullptr || job_id == nullptr) {
    delete buffer;
    return -MINERU_ERR_INVALID_ARGUMENT;
  }
  return Guard(client, [&] {
    mineru::client::SubmitOptions options;
    options.name = name;
    options.detach = detach != 0;
    auto id = client->client.Submit(std::move(buffer->buffer), options);
    delete buffer;
    if (!id.ok()) return Fail(client, id.status());
    *job_id = *id;
    return 0;
  });
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

int mineru_client_cancel(mineru_client* client, uint64_t job_id) noexcept {
  if (client == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  return Guard(client, [&] {
    mineru::Status s = client->client.Cancel(job_id);
    return s.ok() ? 0 : Fail(client, s);
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
