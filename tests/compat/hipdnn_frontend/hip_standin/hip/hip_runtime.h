/* hip_runtime.h — host-only stand-in (see hip_runtime_api.h). */
#pragma once
#include "hip_runtime_api.h"
#define __host__
#define __device__
#define __HOST_DEVICE__
