/* consumer.c — a C program built against an installed hipdnn-jit (tests/install/run.sh). */
#include <hipdnn_backend.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    const char *s = hipdnnGetErrorString(HIPDNN_STATUS_BAD_PARAM);
    const char *v = hipdnnVersionString_ext();
    printf("c: %s %s\n", s, v);
    return s != NULL && strcmp(s, "HIPDNN_STATUS_BAD_PARAM") == 0 && v != NULL && v[0] != '\0' ? 0 : 1;
}
