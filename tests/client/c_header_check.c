/* Compiled as C: the C API header must be valid C, usable without a C++ compiler. */
#include "mineru/client_c.h"

static void count_page(void* user_data, const mineru_page* page) {
  int* pages = (int*)user_data;
  if (page->markdown_size > 0 && page->content_list_size > 0 && page->content_list[0] == '[') ++*pages;
}

int mineru_c_header_check_submit(const char* socket_path, const void* pdf, size_t size, uint64_t* job_id,
                                 int* pages) {
  mineru_client* client = NULL;
  int rc = mineru_client_connect_with(socket_path, MINERU_CONNECT_PAGE_RESULTS, &client);
  if (rc < 0) return rc;
  *pages = 0;
  rc = mineru_client_submit(client, pdf, size, "from_c", 0, job_id);
  if (rc == 0) {
    int state = -1;
    rc = mineru_client_wait_pages(client, *job_id, NULL, count_page, pages, -1, &state);
    if (rc == 0 && state != MINERU_JOB_DONE) rc = -MINERU_ERR_INTERNAL;
  }
  mineru_client_close(client);
  return rc;
}
