// minerud-worker: one sandboxed document worker. minerud starts it (never a user): it loads the OCR
// models, enters its sandbox, and parses or renders the one document minerud hands it (worker_service.h).
#include "worker/worker_service.h"

int main(int argc, char** argv) { return mineru::worker::RunWorker(argc, argv, {}); }
