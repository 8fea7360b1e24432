/* sdpa_mask_iv.h — a device library of the attention templates (after hd_common.h, before the
 * generated defines and hooks; reads neither): the interval arithmetic a mask modifier's block
 * classification evaluates its chain in (the generated hd_mask_class hook, sdpa_mask.h).
 *
 * The rules are ir/ir_block_mask.c's (the host reference of this classification), step for step:
 * an interval [lo, hi] plus "may be NaN" holds every value a step takes over an index box;
 * endpoints are computed by the same double operation as the reference's elements, so EMPTY and
 * FULL are never wrong, and what the rules cannot decide is PARTIAL. Modes are hd_pointwise's
 * numbers (hipDNN's pointwise enum).
 */

#define HD_TILE_EMPTY 0
#define HD_TILE_FULL 1
#define HD_TILE_PARTIAL 2
#define HD_TILE_PART_BIT ((int)0x80000000u)
#define HD_INF_D __longlong_as_double(0x7ff0000000000000LL)

typedef struct hd_iv {
    double lo, hi;
    bool nan; /* some element may be NaN (not counted in lo, hi) */
} hd_iv;

HD_DEVICE hd_iv hd_iv_unknown() { return hd_iv{-HD_INF_D, HD_INF_D, true}; }
HD_DEVICE hd_iv hd_iv_point(double v) { return v != v ? hd_iv_unknown() : hd_iv{v, v, false}; }
HD_DEVICE hd_iv hd_iv_span(double lo, double hi, bool nan) { return lo != lo || hi != hi ? hd_iv_unknown() : hd_iv{lo, hi, nan}; }
HD_DEVICE bool hd_iv_finite(hd_iv a) { return fabs(a.lo) < HD_INF_D && fabs(a.hi) < HD_INF_D; }
HD_DEVICE hd_iv hd_iv_hull(hd_iv a, hd_iv b) { return hd_iv_span(fmin(a.lo, b.lo), fmax(a.hi, b.hi), a.nan || b.nan); }

/* Truth of every element: 1 true, 0 false, -1 unknown (0 excluded: true; NaN counts as true). */
HD_DEVICE int hd_iv_truth(hd_iv a)
{
    if (a.lo > 0 || a.hi < 0)
        return 1;
    return a.lo == 0 && a.hi == 0 && !a.nan ? 0 : -1;
}

HD_DEVICE hd_iv hd_iv_of_truth(int t) { return t < 0 ? hd_iv{0.0, 1.0, false} : hd_iv_point((double)t); }

/* The hull of x·y or x/y over the endpoint pairs (monotone in each operand for a divisor of one sign). */
HD_DEVICE hd_iv hd_iv_corners(hd_iv a, hd_iv b, bool div)
{
    const double p[4] = {a.lo, a.lo, a.hi, a.hi}, q[4] = {b.lo, b.hi, b.lo, b.hi};
    double lo = HD_INF_D, hi = -HD_INF_D;
#pragma unroll
    for (int n = 0; n < 4; n++) {
        const double r = div ? p[n] / q[n] : p[n] * q[n];
        if (r != r)
            return hd_iv_unknown();
        lo = fmin(lo, r), hi = fmax(hi, r);
    }
    return hd_iv_span(lo, hi, a.nan || b.nan || !hd_iv_finite(a) || !hd_iv_finite(b)); /* 0·inf, inf/inf inside */
}

HD_DEVICE hd_iv hd_iv_abs(hd_iv a)
{
    if (a.lo >= 0)
        return a;
    if (a.hi <= 0)
        return hd_iv_span(-a.hi, -a.lo, a.nan);
    return hd_iv_span(0.0, fmax(-a.lo, a.hi), a.nan);
}

/* fmin / fmax: one NaN operand gives the other one. */
HD_DEVICE hd_iv hd_iv_minmax(hd_iv a, hd_iv b, bool is_max)
{
    if (a.nan || b.nan)
        return hd_iv_span(fmin(a.lo, b.lo), fmax(a.hi, b.hi), a.nan && b.nan);
    return is_max ? hd_iv_span(fmax(a.lo, b.lo), fmax(a.hi, b.hi), false)
                  : hd_iv_span(fmin(a.lo, b.lo), fmin(a.hi, b.hi), false);
}

/* Comparison MODE's truth over the box (hd_pointwise's numbering). */
template <int MODE> HD_DEVICE int hd_iv_cmp(hd_iv a, hd_iv b)
{
    if (a.nan || b.nan)
        return -1;
    const bool same = a.lo == a.hi && b.lo == b.hi && a.lo == b.lo, apart = a.hi < b.lo || b.hi < a.lo;
    switch (MODE) {
    case 6: return same ? 1 : apart ? 0 : -1;                    /* CMP_EQ */
    case 11: return same ? 0 : apart ? 1 : -1;                   /* CMP_NEQ */
    case 8: return a.lo > b.hi ? 1 : a.hi <= b.lo ? 0 : -1;      /* CMP_GT */
    case 7: return a.lo >= b.hi ? 1 : a.hi < b.lo ? 0 : -1;      /* CMP_GE */
    case 10: return a.hi < b.lo ? 1 : a.lo >= b.hi ? 0 : -1;     /* CMP_LT */
    case 9: return a.hi <= b.lo ? 1 : a.lo > b.hi ? 0 : -1;      /* CMP_LE */
    default: return -1;
    }
}

/* One step of pointwise mode MODE over intervals (operands a, b, c as hd_pointwise takes them);
 * a mode without a rule is unknown. */
template <int MODE> HD_DEVICE hd_iv hd_iv_step(hd_iv a, hd_iv b, hd_iv c)
{
    const bool inf_pair = !hd_iv_finite(a) && !hd_iv_finite(b);
    const int ta = hd_iv_truth(a), tb = hd_iv_truth(b), tc = hd_iv_truth(c);
    switch (MODE) {
    case 1: return hd_iv_abs(a);                                                   /* ABS */
    case 2: return hd_iv_span(a.lo + b.lo, a.hi + b.hi, a.nan || b.nan || inf_pair); /* ADD */
    case 4: return tc == 1 ? a : tc == 0 ? b : hd_iv_hull(a, b);                   /* BINARY_SELECT */
    case 5: return hd_iv_span(ceil(a.lo), ceil(a.hi), a.nan);                      /* CEIL */
    case 6: case 7: case 8: case 9: case 10: case 11: return hd_iv_of_truth(hd_iv_cmp<MODE>(a, b));
    case 12: return b.lo <= 0 && b.hi >= 0 ? hd_iv_unknown() : hd_iv_corners(a, b, true); /* DIV */
    case 17: return hd_iv_span(floor(a.lo), floor(a.hi), a.nan);                   /* FLOOR */
    case 23: return a;                                                             /* IDENTITY */
    case 25: return hd_iv_of_truth(ta == 0 || tb == 0 ? 0 : ta == 1 && tb == 1 ? 1 : -1); /* LOGICAL_AND */
    case 26: return hd_iv_of_truth(ta < 0 ? -1 : !ta);                             /* LOGICAL_NOT */
    case 27: return hd_iv_of_truth(ta == 1 || tb == 1 ? 1 : ta == 0 && tb == 0 ? 0 : -1); /* LOGICAL_OR */
    case 28: return hd_iv_minmax(a, b, true);                                      /* MAX */
    case 29: return hd_iv_minmax(a, b, false);                                     /* MIN */
    case 30: return hd_iv_corners(a, b, false);                                    /* MUL */
    case 31: return hd_iv_span(-a.hi, -a.lo, a.nan);                               /* NEG */
    case 42: return hd_iv_span(a.lo - b.hi, a.hi - b.lo, a.nan || b.nan || inf_pair); /* SUB */
    default: return hd_iv_unknown();
    }
}

/* A step result of an integer type rounded as the chain rounds it (to nearest even, saturated
 * to [lo, hi], NaN to 0: monotone, so the endpoints suffice); BOOLEAN by truth value. */
HD_DEVICE hd_iv hd_iv_round_int(hd_iv a, double lo, double hi)
{
    const double l = fmin(fmax(rint(a.lo), lo), hi), h = fmin(fmax(rint(a.hi), lo), hi);
    return a.nan ? hd_iv_span(fmin(l, 0.0), fmax(h, 0.0), false) : hd_iv_span(l, h, false);
}
HD_DEVICE hd_iv hd_iv_bool(hd_iv a) { return hd_iv_of_truth(hd_iv_truth(a)); }

/* [min, max] of values v folded in one at a time (hd_iv_fold), then closed: all NaN is unknown. */
HD_DEVICE hd_iv hd_iv_none() { return hd_iv{HD_INF_D, -HD_INF_D, false}; }
HD_DEVICE void hd_iv_fold(hd_iv &r, double v)
{
    if (v != v)
        r.nan = true;
    else
        r.lo = fmin(r.lo, v), r.hi = fmax(r.hi, v);
}
HD_DEVICE hd_iv hd_iv_close(hd_iv r) { return r.lo > r.hi ? hd_iv_unknown() : r; }
