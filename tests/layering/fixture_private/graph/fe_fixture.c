/* fe_fixture.c — a layering-check fixture (never compiled): graph/ may use ir/, but only its
 * contract ir/ir.h; ir/ir_int.h is private to ir/, so cmake/check_includes.py must refuse it. */
#include "desc/fe_desc.h"
#include "ir/ir.h"
#include "ir/ir_int.h"
