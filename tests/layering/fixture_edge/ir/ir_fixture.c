/* ir_fixture.c — a layering-check fixture (never compiled): ir/ may use only base/, so its
 * include of codegen/ must be refused by cmake/check_includes.py. */
#include "base/base.h"
#include "codegen/cg.h"
