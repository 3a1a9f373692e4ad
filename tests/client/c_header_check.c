/* Compiled as C: the C API header must be valid C, usable without a C++ compiler. */
#include "mineru/client_c.h"

static void count_page(void* user_data, const mineru_page* page) {
  int* pages = (int*)user_data;
  if (page->markdown_size > 0 && page->content_list_size > 0 && page->content_list[0] == '[') ++*pages;
}

int mineru_c_header_check_submit(const char* socket_path, const void* pdf, size_t size, uint64_t* job_id,
                                 int* pages) {
  mineru_client* client = NULL;
  mineru_connect_options connect;
  mineru_submit_options submit;
  mineru_job_status status = {0};
  int rc = mineru_connect_options_init(&connect, sizeof connect);
  status.struct_size = sizeof status;
  if (rc < 0) return rc;
  connect.socket_path = socket_path;
  connect.flags = MINERU_CONNECT_PAGE_RESULTS;
  connect.client_name = "c_header_check";
  rc = mineru_client_connect_opts(&connect, &client);
  if (rc < 0) return rc;
  *pages = 0;
  mineru_submit_options_init(&submit, sizeof submit);
  submit.name = "from_c";
  rc = mineru_client_submit_opts(client, pdf, size, &submit, job_id);
  if (rc == 0) {
    int state = -1;
    rc = mineru_client_wait_pages(client, *job_id, NULL, count_page, pages, -1, &state);
    if (rc == 0 && state != MINERU_JOB_DONE) rc = -MINERU_ERR_INTERNAL;
  }
  if (rc == 0) rc = mineru_client_status(client, *job_id, &status);
  if (rc == 0 && (status.state != MINERU_JOB_DONE || status.job_id != *job_id)) rc = -MINERU_ERR_INTERNAL;
  mineru_client_close(client);
  return rc;
}
