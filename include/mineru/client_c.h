/* libmineru-client, the C API. Opaque handles; every function returns 0 or a negative error code
 * (-MINERU_ERR_*) and never throws. One thread at a time per mineru_client.
 *
 *   mineru_client* c;
 *   if (mineru_client_connect(NULL, &c) < 0) puts(mineru_client_last_error(NULL));  // NULL: find it
 *   mineru_submit_options o;
 *   mineru_submit_options_init(&o, sizeof o);
 *   o.name = "paper";
 *   uint64_t job;
 *   mineru_client_submit_opts(c, pdf, pdf_size, &o, &job);
 *   int state;
 *   mineru_client_wait(c, job, on_progress, user_data, -1, &state);
 *   mineru_result* r;
 *   mineru_client_fetch(c, job, &r);
 *   for (size_t i = 0; i < mineru_result_count(r); ++i) {
 *     mineru_result_file f;
 *     mineru_result_get(r, i, &f);  // f.path "paper.md", f.data, f.size
 *   }
 *   mineru_result_free(r);
 *   mineru_client_close(c);
 *
 * Size-versioned structs (mineru_connect_options, mineru_submit_options, mineru_job_status,
 * mineru_tier_stats, mineru_event) begin with `struct_size`, which the caller sets to sizeof() of
 * the struct its header declares (the options' _init functions take it: pass sizeof(*options); for
 * the others, `mineru_event ev = {0}; ev.struct_size = sizeof ev;`). Members are only
 * ever added at the end. A newer library reads and writes only the members the caller's struct has
 * (the others keep their defaults); a library older than the caller's header refuses an options
 * struct whose extra members are not zero (-MINERU_ERR_INVALID_ARGUMENT), so an option is never
 * silently ignored.
 */
#ifndef MINERU_CLIENT_C_H_
#define MINERU_CLIENT_C_H_

#include <stddef.h>
#include <stdint.h>

#include "mineru/version.h"

#ifdef __cplusplus
#define MINERU_NOEXCEPT noexcept
extern "C" {
#else
#define MINERU_NOEXCEPT
#endif
/* libmineru-client.so is built with hidden visibility; what this header declares is its API. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
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

/* Job states. */
enum { MINERU_JOB_QUEUED = 0, MINERU_JOB_RUNNING, MINERU_JOB_DONE, MINERU_JOB_FAILED, MINERU_JOB_CANCELLED };

typedef struct mineru_client mineru_client;
typedef struct mineru_buffer mineru_buffer;
typedef struct mineru_result mineru_result;
typedef struct mineru_job_list mineru_job_list;
typedef struct mineru_stats mineru_stats;

/* ---- Version ---------------------------------------------------------------------------------- */

/* The library's version at run time (MINERU_VERSION_STRING / _NUMBER give the header's). */
const char* mineru_version(void) MINERU_NOEXCEPT;
uint32_t mineru_version_number(void) MINERU_NOEXCEPT;

/* ---- Connecting ------------------------------------------------------------------------------- */

/* Flags for mineru_connect_options.flags and mineru_client_connect_with. */
enum { MINERU_CONNECT_PAGE_RESULTS = 1 /* stream each finished page (mineru_client_wait_pages, events) */ };

typedef struct mineru_connect_options {
  size_t struct_size;
  const char* socket_path;    /* NULL: $MINERU_SOCKET, client.conf, the user's daemon, the system one */
  unsigned flags;             /* MINERU_CONNECT_* */
  const char* client_name;    /* for the daemon's logs; NULL: "libmineru-client (C)" */
  uint64_t ring_bytes;        /* result ring size; 0: the daemon's default */
  int64_t connect_timeout_ms; /* default 5000 */
} mineru_connect_options;
/* Sets the defaults and struct_size; struct_size: sizeof(*options) (-MINERU_ERR_INVALID_ARGUMENT when
 * smaller than the first version of the struct). */
int mineru_connect_options_init(mineru_connect_options* options, size_t struct_size) MINERU_NOEXCEPT;

int mineru_client_connect_opts(const mineru_connect_options* options, mineru_client** out) MINERU_NOEXCEPT;
/* Shorthands: mineru_client_connect_opts with socket_path (and flags) set. */
int mineru_client_connect(const char* socket_path, mineru_client** out) MINERU_NOEXCEPT;
int mineru_client_connect_with(const char* socket_path, unsigned flags, mineru_client** out) MINERU_NOEXCEPT;
void mineru_client_close(mineru_client* client) MINERU_NOEXCEPT;

/* The message of the last error on this client ("" when none); with NULL, the message of this
 * thread's last failed connect or buffer creation (every socket tried, the group to join). Valid until
 * the next call on the same client (or thread). */
const char* mineru_client_last_error(const mineru_client* client) MINERU_NOEXCEPT;
/* A fixed text for an error code (negative or positive). */
const char* mineru_client_strerror(int code) MINERU_NOEXCEPT;
/* The version the daemon announced; its socket's path. Valid while the client is open. */
const char* mineru_client_daemon_version(const mineru_client* client) MINERU_NOEXCEPT;
const char* mineru_client_socket_path(const mineru_client* client) MINERU_NOEXCEPT;
/* Round trip time of an empty message, in microseconds. */
int mineru_client_ping(mineru_client* client, double* round_trip_us) MINERU_NOEXCEPT;

/* ---- Submitting ------------------------------------------------------------------------------- */

typedef struct mineru_submit_options {
  size_t struct_size;
  const char* name;    /* base name of the outputs ("paper" -> paper.md); required */
  int detach;          /* 0: this client receives the job's events; 1: the job outlives the connection */
  const char* backend; /* NULL or "auto", "text", "vlm" */
  uint32_t first_page; /* 0-based, inclusive; default 0 */
  uint32_t last_page;  /* inclusive; default UINT32_MAX (to the end) */
} mineru_submit_options;
int mineru_submit_options_init(mineru_submit_options* options, size_t struct_size) MINERU_NOEXCEPT;

/* Copies `size` bytes into a sealed memfd and submits them. */
int mineru_client_submit_opts(mineru_client* client, const void* data, size_t size,
                              const mineru_submit_options* options, uint64_t* job_id) MINERU_NOEXCEPT;
/* Shorthand: name and detach only. */
int mineru_client_submit(mineru_client* client, const void* data, size_t size, const char* name, int detach,
                         uint64_t* job_id) MINERU_NOEXCEPT;

/* Zero-copy: create a buffer, write the document into mineru_buffer_data(), submit it. */
int mineru_buffer_create(size_t size, mineru_buffer** out) MINERU_NOEXCEPT;
void* mineru_buffer_data(mineru_buffer* buffer) MINERU_NOEXCEPT;
void mineru_buffer_free(mineru_buffer* buffer) MINERU_NOEXCEPT;
/* Consume the buffer (also on error): do not free it afterwards. */
int mineru_client_submit_buffer_opts(mineru_client* client, mineru_buffer* buffer,
                                     const mineru_submit_options* options, uint64_t* job_id) MINERU_NOEXCEPT;
int mineru_client_submit_buffer(mineru_client* client, mineru_buffer* buffer, const char* name, int detach,
                                uint64_t* job_id) MINERU_NOEXCEPT;

/* ---- Jobs ------------------------------------------------------------------------------------- */

typedef void (*mineru_progress_fn)(void* user_data, uint64_t job_id, uint32_t pages_done,
                                   uint32_t pages_total);

/* One finished page, streamed while its job runs (see MINERU_CONNECT_PAGE_RESULTS). The pointers are
 * valid during the callback (or until the next call on the client, for an event) only; the texts are
 * not NUL-terminated. */
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

/* Waits for the job to end; `progress` (may be NULL) sees each page. *state (may be NULL) gets
 * MINERU_JOB_DONE, _FAILED or _CANCELLED. timeout_ms < 0: no limit (-MINERU_ERR_DEADLINE_EXCEEDED
 * when it passes; the job goes on). */
int mineru_client_wait(mineru_client* client, uint64_t job_id, mineru_progress_fn progress, void* user_data,
                       int64_t timeout_ms, int* state) MINERU_NOEXCEPT;
/* As mineru_client_wait; on a client connected with MINERU_CONNECT_PAGE_RESULTS, `page` (may be NULL)
 * receives each finished page of a job this client submitted without detaching, in order. */
int mineru_client_wait_pages(mineru_client* client, uint64_t job_id, mineru_progress_fn progress,
                             mineru_page_fn page, void* user_data, int64_t timeout_ms,
                             int* state) MINERU_NOEXCEPT;

typedef struct mineru_job_status {
  size_t struct_size;
  uint64_t job_id;
  uint32_t owner_uid;
  int state; /* MINERU_JOB_* */
  uint32_t pages_done;
  uint32_t pages_total;
  int64_t submitted_unix_ms;
  int64_t finished_unix_ms; /* 0 while the job runs */
  uint64_t document_bytes;
  int error_code;      /* 0, or a negative MINERU_ERR_* for a failed or cancelled job */
  const char* name;    /* the strings: see the function that filled the struct */
  const char* backend; /* "text-layer", "vlm", ... */
  const char* error;   /* "" unless failed */
} mineru_job_status;

/* One job (strings valid until the next call on this client). -MINERU_ERR_NOT_FOUND: no such job, or
 * not yours. */
int mineru_client_status(mineru_client* client, uint64_t job_id, mineru_job_status* status) MINERU_NOEXCEPT;
/* Your jobs (all users' with all_users for root and the admin group), in submission order. */
int mineru_client_list(mineru_client* client, int all_users, mineru_job_list** out) MINERU_NOEXCEPT;
size_t mineru_job_list_count(const mineru_job_list* list) MINERU_NOEXCEPT;
/* Strings valid until the list is freed. */
int mineru_job_list_get(const mineru_job_list* list, size_t index, mineru_job_status* status) MINERU_NOEXCEPT;
void mineru_job_list_free(mineru_job_list* list) MINERU_NOEXCEPT;

int mineru_client_cancel(mineru_client* client, uint64_t job_id) MINERU_NOEXCEPT;
/* Cancels every job of yours that has not ended; *count (may be NULL) gets how many, and the first
 * `capacity` of their ids go to `job_ids` (may be NULL with capacity 0). */
int mineru_client_cancel_all(mineru_client* client, uint64_t* job_ids, size_t capacity,
                             size_t* count) MINERU_NOEXCEPT;

/* Reads a finished job's output files (fetching every output removes them from the daemon). */
typedef struct mineru_result_file {
  const char* path; /* relative: "paper.md", "images/<hash>.jpg" */
  const uint8_t* data;
  size_t size;
} mineru_result_file;
int mineru_client_fetch(mineru_client* client, uint64_t job_id, mineru_result** out) MINERU_NOEXCEPT;
size_t mineru_result_count(const mineru_result* result) MINERU_NOEXCEPT;
int mineru_result_get(const mineru_result* result, size_t index, mineru_result_file* file) MINERU_NOEXCEPT;
void mineru_result_free(mineru_result* result) MINERU_NOEXCEPT;

/* ---- Events, for an app's own event loop ------------------------------------------------------ */

/* The descriptor to poll for POLLIN (do not read, write or close it). When it is readable, call
 * mineru_client_next_event with timeout 0 until it returns 0: events that arrived during other calls
 * are kept and handed out first, so drain before polling again. */
int mineru_client_fd(const mineru_client* client) MINERU_NOEXCEPT;
/* Streams the events of a job this client did not submit (or submitted detached) from now on. */
int mineru_client_watch(mineru_client* client, uint64_t job_id) MINERU_NOEXCEPT;

enum { MINERU_EVENT_PROGRESS = 1, MINERU_EVENT_PAGE, MINERU_EVENT_DONE, MINERU_EVENT_FAILED };
typedef struct mineru_event {
  size_t struct_size;
  int type; /* MINERU_EVENT_* */
  uint64_t job_id;
  uint32_t pages_done;     /* PROGRESS */
  uint32_t pages_total;    /* PROGRESS, DONE */
  int error_code;          /* FAILED: a negative MINERU_ERR_* (-MINERU_ERR_CANCELLED: cancelled) */
  const char* error;       /* FAILED; "" otherwise */
  const mineru_page* page; /* PAGE; NULL otherwise */
} mineru_event;
/* The next event of a job this client submitted or watches: 1 and *event filled (its pointers valid
 * until the next call on this client), 0 when none came within timeout_ms (0: do not wait; < 0: no
 * limit), or a negative error. After a job's DONE or FAILED event, a wait on it returns at once. */
int mineru_client_next_event(mineru_client* client, int64_t timeout_ms, mineru_event* event) MINERU_NOEXCEPT;

/* ---- The daemon's counters and memory tiers --------------------------------------------------- */

typedef struct mineru_tier_stats {
  size_t struct_size;
  const char* tier; /* "gpu", "pinned", "disk" */
  uint64_t budget_bytes;
  uint64_t used_bytes;
  uint64_t peak_bytes;
  uint32_t units_resident;
} mineru_tier_stats;

int mineru_client_stats(mineru_client* client, mineru_stats** out) MINERU_NOEXCEPT;
/* Counters by index (sorted by name) or by name (-MINERU_ERR_NOT_FOUND). Strings valid until freed. */
size_t mineru_stats_counter_count(const mineru_stats* stats) MINERU_NOEXCEPT;
int mineru_stats_counter_get(const mineru_stats* stats, size_t index, const char** name,
                             double* value) MINERU_NOEXCEPT;
int mineru_stats_counter(const mineru_stats* stats, const char* name, double* value) MINERU_NOEXCEPT;
size_t mineru_stats_tier_count(const mineru_stats* stats) MINERU_NOEXCEPT;
int mineru_stats_tier_get(const mineru_stats* stats, size_t index, mineru_tier_stats* tier) MINERU_NOEXCEPT;
void mineru_stats_free(mineru_stats* stats) MINERU_NOEXCEPT;

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif

#endif /* MINERU_CLIENT_C_H_ */
