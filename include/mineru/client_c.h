/* libmineru-client, the C API. Opaque handles; every function returns 0 or a negative error code
 * (-MINERU_ERR_*) and never throws. One thread at a time per mineru_client.
 *
 *   mineru_client* c;
 *   if (mineru_client_connect(NULL, &c) < 0) ...;          // NULL: the default socket
 *   uint64_t job;
 *   mineru_client_submit(c, pdf, pdf_size, "paper", 0, &job);
 *   mineru_client_wait(c, job, on_progress, user_data);
 *   mineru_result* r;
 *   mineru_client_fetch(c, job, &r);
 *   for (size_t i = 0; i < mineru_result_count(r); ++i) { mineru_result_file f; mineru_result_get(r, i, &f);
 * } mineru_result_free(r); mineru_client_close(c);
 */
#ifndef MINERU_CLIENT_C_H_
#define MINERU_CLIENT_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define MINERU_NOEXCEPT noexcept
extern "C" {
#else
#define MINERU_NOEXCEPT
#endif

/* Error codes (returned negated). The values follow mineru::StatusCode. */
enum {
  MINERU_OK = 0,
  MINERU_ERR_INVALID_ARGUMENT = 1,
  MINERU_ERR_NOT_FOUND = 2,
  MINERU_ERR_ALREADY_EXISTS = 3,
  MINERU_ERR_PERMISSION_DENIED = 4,
  MINERU_ERR_RESOURCE_EXHAUSTED = 5,
  MINERU_ERR_BUSY = 6, /* queue full: retry later */
  MINERU_ERR_FAILED_PRECONDITION = 7,
  MINERU_ERR_OUT_OF_RANGE = 8,
  MINERU_ERR_CANCELLED = 9,
  MINERU_ERR_DEADLINE_EXCEEDED = 10,
  MINERU_ERR_DATA_LOSS = 11,
  MINERU_ERR_UNAVAILABLE = 12, /* minerud not running or gone */
  MINERU_ERR_UNIMPLEMENTED = 13,
  MINERU_ERR_IO = 14,
  MINERU_ERR_INTERNAL = 15
};

/* Job states as mineru_client_wait reports them. */
enum { MINERU_JOB_QUEUED = 0, MINERU_JOB_RUNNING, MINERU_JOB_DONE, MINERU_JOB_FAILED, MINERU_JOB_CANCELLED };

typedef struct mineru_client mineru_client;
typedef struct mineru_buffer mineru_buffer;
typedef struct mineru_result mineru_result;

typedef struct mineru_result_file {
  const char* path; /* relative: "paper.md", "images/<hash>.jpg" */
  const uint8_t* data;
  size_t size;
} mineru_result_file;

typedef void (*mineru_progress_fn)(void* user_data, uint64_t job_id, uint32_t pages_done,
                                   uint32_t pages_total);

/* One finished page, streamed while its job runs (see MINERU_CONNECT_PAGE_RESULTS). The pointers are
 * valid during the callback only; the texts are not NUL-terminated. */
typedef struct mineru_page {
  uint64_t job_id;
  uint32_t page_index; /* in the document, 0-based */
  const char* markdown;
  size_t markdown_size;
  const char* content_list; /* JSON array: the page's content-list items */
  size_t content_list_size;
  const char* model_output; /* the model's raw text; empty for the text layer */
  size_t model_output_size;
} mineru_page;

typedef void (*mineru_page_fn)(void* user_data, const mineru_page* page);

/* Flags for mineru_client_connect_with. */
enum { MINERU_CONNECT_PAGE_RESULTS = 1 /* stream each finished page to mineru_client_wait_pages */ };

/* Connects (socket_path NULL: $MINERU_SOCKET or the default). */
int mineru_client_connect(const char* socket_path, mineru_client** out) MINERU_NOEXCEPT;
/* Connects with MINERU_CONNECT_* flags. */
int mineru_client_connect_with(const char* socket_path, unsigned flags, mineru_client** out) MINERU_NOEXCEPT;
void mineru_client_close(mineru_client* client) MINERU_NOEXCEPT;
/* The message of the last error on this client ("" when none). Valid until the next call. */
const char* mineru_client_last_error(const mineru_client* client) MINERU_NOEXCEPT;
/* A fixed text for an error code (negative or positive). */
const char* mineru_client_strerror(int code) MINERU_NOEXCEPT;

/* Copies `size` bytes into a sealed memfd and submits them as document `name`. */
int mineru_client_submit(mineru_client* client, const void* data, size_t size, const char* name, int detach,
                         uint64_t* job_id) MINERU_NOEXCEPT;

/* Zero-copy: create a buffer, write the document into mineru_buffer_data(), submit it. */
int mineru_buffer_create(size_t size, mineru_buffer** out) MINERU_NOEXCEPT;
void* mineru_buffer_data(mineru_buffer* buffer) MINERU_NOEXCEPT;
void mineru_buffer_free(mineru_buffer* buffer) MINERU_NOEXCEPT;
/* Consumes the buffer (also on error): do not free it afterwards. */
int mineru_client_submit_buffer(mineru_client* client, mineru_buffer* buffer, const char* name, int detach,
                                uint64_t* job_id) MINERU_NOEXCEPT;

/* Waits for the job to end; `progress` (may be NULL) sees each page. *state (may be NULL) gets
 * MINERU_JOB_DONE, _FAILED or _CANCELLED. timeout_ms < 0: no limit. */
int mineru_client_wait(mineru_client* client, uint64_t job_id, mineru_progress_fn progress, void* user_data,
                       int64_t timeout_ms, int* state) MINERU_NOEXCEPT;
/* As mineru_client_wait; on a client connected with MINERU_CONNECT_PAGE_RESULTS, `page` (may be NULL)
 * receives each finished page of a job this client submitted without detaching, in order. */
int mineru_client_wait_pages(mineru_client* client, uint64_t job_id, mineru_progress_fn progress,
                             mineru_page_fn page, void* user_data, int64_t timeout_ms,
                             int* state) MINERU_NOEXCEPT;
int mineru_client_cancel(mineru_client* client, uint64_t job_id) MINERU_NOEXCEPT;

/* Reads a finished job's output files. */
int mineru_client_fetch(mineru_client* client, uint64_t job_id, mineru_result** out) MINERU_NOEXCEPT;
size_t mineru_result_count(const mineru_result* result) MINERU_NOEXCEPT;
int mineru_result_get(const mineru_result* result, size_t index, mineru_result_file* file) MINERU_NOEXCEPT;
void mineru_result_free(mineru_result* result) MINERU_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* MINERU_CLIENT_C_H_ */
