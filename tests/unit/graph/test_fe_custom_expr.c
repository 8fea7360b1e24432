/* test_fe_custom_expr.c — jit.hip_source's size expressions (graph/fe_custom_expr.c) over fixed
 * tensors: in0 [2, 3, 4, 5] strides (60, 20, 5, 1), in1 [7], out0 [6, 8], out1 [2^40, 2^30, 4].
 * Values: precedence and associativity, unary minus, C's truncating / and %, every function
 * (negative dims from the end, cdiv's rounding for every sign), whitespace, the int64 limits.
 * Refusals, each with what is wrong: int64 overflow of every operator and of numel, numbers out
 * of range, division and modulo by zero, dim and tensor indices out of range, a tensor used as a
 * number, syntax errors with the place, trailing characters, nesting past 32, text past 256.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "graph/fe_custom_int.h"

TestSuite(fe_custom_expr);

static const hipdnnJitCustomTensor_t ins[2] = {
    {.uid = 1, .data_type = HIPDNN_DATA_FLOAT, .rank = 4, .dims = {2, 3, 4, 5}, .strides = {60, 20, 5, 1}},
    {.uid = 2, .data_type = HIPDNN_DATA_FLOAT, .rank = 1, .dims = {7}, .strides = {1}},
};
static const hipdnnJitCustomTensor_t outs[2] = {
    {.uid = 3, .data_type = HIPDNN_DATA_FLOAT, .rank = 2, .dims = {6, 8}, .strides = {8, 1}},
    {.uid = 4, .data_type = HIPDNN_DATA_FLOAT, .rank = 3, .dims = {1LL << 40, 1LL << 30, 4},
     .strides = {1LL << 32, 4, 1}},
};
static const hipdnnJitCustomOpCall_t call = {.op_id = "jit.hip_source", .num_inputs = 2, .inputs = ins,
                                             .num_outputs = 2, .outputs = outs};

Test(fe_custom_expr, values)
{
    const struct {
        const char *text;
        int64_t want;
    } cases[] = {
        {"2 + 3 * 4", 14},            {"(2 + 3) * 4", 20},         {"10 - 4 - 3", 3},
        {"100 / 10 / 5", 2},          {"7 % 3 * 2", 2},            {"2 * -3 + 1", -5},
        {"-3 * -3", 9},               {"- - 5", 5},                {"-(2 + 3) * 2", -10},
        {"-7 / 2", -3},               {"7 / -2", -3},              {"-7 % 3", -1},
        {"7 % -3", 1},                {"0", 0},                    {"007", 7},
        {"numel(in0)", 120},          {"numel(in1)", 7},           {"rank(in0)", 4},
        {"rank(out1)", 3},            {"dim(in0, 0)", 2},          {"dim(in0, 3)", 5},
        {"dim(in0, -1)", 5},          {"dim(in0, -4)", 2},         {"stride(in0, 1)", 20},
        {"stride(in0, -1)", 1},       {"stride(out0, -2)", 8},     {"dim(in0, rank(in0) - 2)", 4},
        {"cdiv(10, 3)", 4},           {"cdiv(9, 3)", 3},           {"cdiv(0, 5)", 0},
        {"cdiv(-7, 2)", -3},          {"cdiv(7, -2)", -3},         {"cdiv(-7, -2)", 4},
        {"min(3, -2)", -2},           {"max(3, -2)", 3},           {"min(4, 4)", 4},
        {"cdiv(numel(out0), 256)", 1},                             {"numel(out0) / dim(out0, 1)", 6},
        {"  dim( in0 ,\t2 )\n", 4},   {"max(min(rank(in1), 2), dim(out1, -3) / 1024)", 1LL << 30},
        {"9223372036854775807", INT64_MAX},                        {"0 - 9223372036854775807 - 1", INT64_MIN},
        {"dim(out1, 0) / 4 * dim(out1, 2)", 1LL << 40},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = -12345;
        char why[256] = "";
        cr_expect_eq(fe_expr_eval(cases[i].text, &call, &v, why, sizeof why), 0, "\"%s\": %s", cases[i].text, why);
        cr_expect_eq(v, cases[i].want, "\"%s\" = %lld, want %lld", cases[i].text, (long long)v,
                     (long long)cases[i].want);
    }
}

Test(fe_custom_expr, refusals_say_what_is_wrong)
{
    char deep_ok[80] = "", deep_bad[80] = "", long_text[300];
    for (int i = 0; i < 31; i++)
        strcat(deep_ok, "(");
    strcat(deep_ok, "1");
    for (int i = 0; i < 31; i++)
        strcat(deep_ok, ")");
    strcpy(deep_bad, "(");
    strcat(deep_bad, deep_ok);
    strcat(deep_bad, ")");
    memset(long_text, ' ', 256);
    strcpy(long_text + 256, "1");
    int64_t v = 0;
    char why[256];
    cr_expect_eq(fe_expr_eval(deep_ok, &call, &v, why, sizeof why), 0, "31 parentheses: %s", why);
    const struct {
        const char *text, *says;
    } cases[] = {
        {"9223372036854775807 + 1", "int64 overflow in 9223372036854775807 + 1"},
        {"0 - 9223372036854775807 - 2", "int64 overflow"},
        {"4611686018427387904 * 2", "int64 overflow"},
        {"(0 - 9223372036854775807 - 1) / -1", "int64 overflow"},
        {"(0 - 9223372036854775807 - 1) % -1", "int64 overflow"},
        {"-(0 - 9223372036854775807 - 1)", "int64 overflow"},
        {"cdiv(0 - 9223372036854775807 - 1, -1)", "int64 overflow"},
        {"numel(out1)", "numel(out1) overflows int64"},
        {"dim(out1, 0) * dim(out1, 1)", "int64 overflow"},
        {"9223372036854775808", "does not fit in int64"},
        {"1 / 0", "division by zero"},
        {"5 % (2 - 2)", "modulo by zero"},
        {"cdiv(1, dim(in0, 0) - 2)", "cdiv(1, 0): division by zero"},
        {"dim(in0, 9)", "in0 has rank 4: no dim 9"},
        {"stride(in0, -5)", "in0 has rank 4: no dim -5"},
        {"dim(in1, 1)", "in1 has rank 1: no dim 1"},
        {"numel(in2)", "in2: the op has 2 inputs"},
        {"rank(out7)", "out7: the op has 2 outputs"},
        {"numel(in99999999999999999999)", "the op has 2 inputs"},
        {"in0 + 1", "in0 is a tensor, not a number: use numel(in0)"},
        {"numel(x)", "expected a tensor (in<N> or out<N>), found 'x' at character 7"},
        {"numel(in0x)", "'in0x' is not a tensor"},
        {"numel(in)", "expected a tensor"},
        {"foo(1)", "unknown function 'foo' at character 1"},
        {"dim(in0)", "expected ',', found ')' at character 8"},
        {"max(1, 2, 3)", "expected ')', found ',' at character 9"},
        {"(1", "expected ')', found the end"},
        {"2 +", "expected a number, '(', '-' or a function, found the end"},
        {"2 * )", "found ')' at character 5"},
        {"2 3", "unexpected '3' at character 3"},
        {"1x", "a number followed by 'x' at character 2"},
        {"numel(in0) numel(in0)", "unexpected 'n' at character 12"},
        {"", "an empty expression"},
        {"  \t", "an empty expression"},
        {"1 $ 2", "unexpected '$' at character 3"},
        {"\x01", "byte 0x01 at character 1"},
        {deep_bad, "nested deeper than 32 levels"},
        {"--------------------------------------------------1", "nested deeper than 32 levels"},
        {long_text, "longer than 256 characters"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        why[0] = '\0';
        v = 777;
        cr_expect_eq(fe_expr_eval(cases[i].text, &call, &v, why, sizeof why), -1, "\"%s\" is refused", cases[i].text);
        cr_expect(strstr(why, cases[i].says) != NULL, "\"%s\": want \"%s\" in \"%s\"", cases[i].text, cases[i].says,
                  why);
        cr_expect_eq(v, 777, "\"%s\": a refusal leaves the value", cases[i].text);
    }
}

/* A message buffer too small is cut, never overrun; a zero-size one is not written. */
Test(fe_custom_expr, short_message_buffers)
{
    char why[8];
    memset(why, 'z', sizeof why);
    int64_t v;
    cr_expect_eq(fe_expr_eval("dim(in0, 9)", &call, &v, why, 6), -1);
    cr_expect_str_eq(why, "in0 h");
    cr_expect_eq(why[6], 'z');
    cr_expect_eq(fe_expr_eval("1 / 0", &call, &v, why + 7, 0), -1);
    cr_expect_eq(why[7], 'z');
}
