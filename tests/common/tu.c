/* tu.c — the shared test helpers declared in tu.h (random numbers, last-error text). */
#include <time.h>
#include <unistd.h>

#include "tu.h"

static uint64_t rng_state;

uint64_t tu_rand(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int64_t tu_range(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(tu_rand() % (uint64_t)(hi - lo + 1));
}

float tu_float(float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(tu_rand() >> 11) / (double)(1ull << 53));
}

void tu_bytes(void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)p)[i] = (unsigned char)tu_rand();
}

uint64_t tu_seed(const char *test)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                    (uint64_t)getpid() << 40;
    const char *env = getenv("HIPDNN_TEST_SEED");
    if (env != NULL && *env != '\0')
        seed = strtoull(env, NULL, 0);
    rng_state = seed;
    fprintf(stderr, "%s: seed %llu (HIPDNN_TEST_SEED=%llu replays it)\n", test,
            (unsigned long long)seed, (unsigned long long)seed);
    return seed;
}

const char *tu_msg(void)
{
    static _Thread_local char buf[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnPeekLastErrorString_ext(buf, sizeof buf);
    return buf;
}
