/* Compiled as C: the C API header must be valid C, usable without a C++ compiler. */
#include "mineru/client_c.h"

int mineru_c_header_check_submit(const char* socket_path, const void* pdf, size_t size, uint64_t* job_id) {
  mineru_client* client = NULL;
  int rc = mineru_client_connect(socket_path, &client);
  if (rc < 0) return rc;
  rc = mineru_client_submit(client, pdf, size, "from_c", 0, job_id);
  if (rc == 0) {
    int state = -1;
    rc = mineru_client_wait(client, *job_id, NULL, NULL, -1, &state);
    if (rc == 0 && state != MINERU_JOB_DONE) rc = -MINERU_ERR_INTERNAL;
  }
  mineru_client_close(client);
  return rc;
}
