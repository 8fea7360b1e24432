/* placeholder */
#include "kt_util.h"
