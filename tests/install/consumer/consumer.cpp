// consumer.cpp — a C++ program built against an installed hipdnn-jit (tests/install/run.sh).
#include <hipdnn_backend.h>
#include <cstdio>
#include <cstring>

int main()
{
    const char *s = hipdnnGetErrorString(HIPDNN_STATUS_NOT_SUPPORTED);
    hipdnnHandle_t h = nullptr;
    bool ok = hipdnnCreate(&h) == HIPDNN_STATUS_SUCCESS && hipdnnDestroy(h) == HIPDNN_STATUS_SUCCESS;
    std::printf("c++: %s %s\n", s, hipdnnVersionString_ext());
    return ok && std::strcmp(s, "HIPDNN_STATUS_NOT_SUPPORTED") == 0 ? 0 : 1;
}
