// headroom-worker: inspect attention layers, check LRB Theorem 1, train and serve experiments.
#include "app/worker/worker_cli.h"

int main(int argc, char** argv) { return headroom::worker::run_worker_cli(argc, argv); }
