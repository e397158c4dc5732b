// A stand-in for a neighbour that takes CPUs in short bursts: T threads, each spinning ON_US
// microseconds then sleeping a random 0..2*OFF_US, until SECONDS have passed. Average load:
// T * ON / (ON + OFF) CPUs. Build: gcc -O2 -pthread -o burst burst.c
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long on_us, off_us;
static double until;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void* spin(void* arg) {
  unsigned seed = (unsigned)(size_t)arg * 2654435761u;
  while (now() < until) {
    const double stop = now() + 1e-6 * on_us;
    while (now() < stop) {
    }
    usleep((useconds_t)(rand_r(&seed) % (2 * off_us + 1)));
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: burst THREADS ON_US OFF_US SECONDS\n");
    return 2;
  }
  const int threads = atoi(argv[1]);
  on_us = atol(argv[2]);
  off_us = atol(argv[3]);
  until = now() + atof(argv[4]);
  pthread_t t[256];
  for (int i = 0; i < threads && i < 256; ++i) pthread_create(&t[i], NULL, spin, (void*)(size_t)(i + 1));
  for (int i = 0; i < threads && i < 256; ++i) pthread_join(t[i], NULL);
  return 0;
}
