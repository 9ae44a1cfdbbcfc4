/* jsonv: the tests' strict JSON parser (tests/jsonv.h), recursive descent. */
#include "jsonv.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSONV_MAX_DEPTH 64

typedef struct jsonv_p {
    const char *s;
    size_t len, pos;
    char *why;
    size_t why_len;
    bool failed;
} jsonv_p;

static bool
jsonv_fail(jsonv_p *p, const char *fmt, ...)
{
    if (!p->failed) {
        char msg[200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(p->why, p->why_len, "%s at byte %zu", msg, p->pos);
        p->failed = true;
    }
    return false;
}

static void *
jsonv_alloc(size_t n)
{
    void *q = calloc(1, n ? n : 1);
    if (!q)
        abort();
    return q;
}

static void
jsonv_ws(jsonv_p *p)
{
    while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) && p->s[p->pos])
        p->pos++;
}

static void
jsonv_put(char **buf, size_t *len, size_t *cap, const char *src, size_t n)
{
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        char *nb = realloc(*buf, *cap);
        if (!nb)
            abort();
        *buf = nb;
    }
    memcpy(*buf + *len, src, n);
    *len += n;
    (*buf)[*len] = '\0';
}

static int
jsonv_hex4(jsonv_p *p, uint32_t *out)
{
    if (p->len - p->pos < 4)
        return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->s[p->pos + (size_t)i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return 0;
    }
    p->pos += 4;
    *out = v;
    return 1;
}

/* One well-formed UTF-8 character at p->pos (not ASCII): its length, or 0. */
static size_t
jsonv_utf8(const jsonv_p *p)
{
    const unsigned char *u = (const unsigned char *)p->s + p->pos;
    size_t left = p->len - p->pos;
    if (u[0] >= 0xc2 && u[0] <= 0xdf)
        return left >= 2 && (u[1] & 0xc0) == 0x80 ? 2 : 0;
    if (u[0] >= 0xe0 && u[0] <= 0xef) {
        if (left < 3 || (u[1] & 0xc0) != 0x80 || (u[2] & 0xc0) != 0x80)
            return 0;
        if ((u[0] == 0xe0 && u[1] < 0xa0) || (u[0] == 0xed && u[1] >= 0xa0))
            return 0;       /* overlong, or a surrogate */
        return 3;
    }
    if (u[0] >= 0xf0 && u[0] <= 0xf4) {
        if (left < 4 || (u[1] & 0xc0) != 0x80 || (u[2] & 0xc0) != 0x80 ||
            (u[3] & 0xc0) != 0x80)
            return 0;
        if ((u[0] == 0xf0 && u[1] < 0x90) || (u[0] == 0xf4 && u[1] >= 0x90))
            return 0;
        return 4;
    }
    return 0;
}

static void
jsonv_put_cp(char **buf, size_t *len, size_t *cap, uint32_t cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xc0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xe0 | cp >> 12);
        b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        b[0] = (char)(0xf0 | cp >> 18);
        b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
        b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
        b[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    jsonv_put(buf, len, cap, b, n);
}

static bool
jsonv_string(jsonv_p *p, char **out, size_t *out_len)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    jsonv_put(&buf, &len, &cap, "", 0);
    p->pos++;   /* the opening quote */
    for (;;) {
        if (p->pos >= p->len) {
            free(buf);
            return jsonv_fail(p, "unterminated string");
        }
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            free(buf);
            return jsonv_fail(p, "raw control character 0x%02x in a string", c);
        }
        if (c == '\\') {
            p->pos++;
            char e = p->pos < p->len ? p->s[p->pos++] : 0;
            const char *simple = strchr("\"\\/bfnrt", e);
            if (e && simple) {
                static const char map[] = "\"\\/\b\f\n\r\t";
                jsonv_put(&buf, &len, &cap, &map[simple - "\"\\/bfnrt"], 1);
                continue;
            }
            uint32_t cp, lo;
            if (e != 'u' || !jsonv_hex4(p, &cp)) {
                free(buf);
                return jsonv_fail(p, "bad escape");
            }
            if (cp >= 0xdc00 && cp < 0xe000) {
                free(buf);
                return jsonv_fail(p, "lone low surrogate");
            }
            if (cp >= 0xd800 && cp < 0xdc00) {
                if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') {
                    free(buf);
                    return jsonv_fail(p, "lone high surrogate");
                }
                p->pos += 2;
                if (!jsonv_hex4(p, &lo) || lo < 0xdc00 || lo >= 0xe000) {
                    free(buf);
                    return jsonv_fail(p, "bad surrogate pair");
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            jsonv_put_cp(&buf, &len, &cap, cp);
            continue;
        }
        size_t n = c < 0x80 ? 1 : jsonv_utf8(p);
        if (n == 0) {
            free(buf);
            return jsonv_fail(p, "invalid UTF-8 byte 0x%02x", c);
        }
        jsonv_put(&buf, &len, &cap, p->s + p->pos, n);
        p->pos += n;
    }
    *out = buf;
    *out_len = len;
    return true;
}

static bool
jsonv_digits(jsonv_p *p)
{
    size_t start = p->pos;
    while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
        p->pos++;
    return p->pos > start;
}

static bool
jsonv_number(jsonv_p *p, jsonv *v)
{
    size_t start = p->pos;
    if (p->s[p->pos] == '-')
        p->pos++;
    if (p->pos < p->len && p->s[p->pos] == '0')
        p->pos++;
    else if (!jsonv_digits(p))
        return jsonv_fail(p, "bad number");
    if (p->pos < p->len && p->s[p->pos] == '.') {
        p->pos++;
        if (!jsonv_digits(p))
            return jsonv_fail(p, "bad fraction");
    }
    if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
            p->pos++;
        if (!jsonv_digits(p))
            return jsonv_fail(p, "bad exponent");
    }
    v->type = JSONV_NUMBER;
    v->len = p->pos - start;
    v->text = jsonv_alloc(v->len + 1);
    memcpy(v->text, p->s + start, v->len);
    return true;
}

static bool jsonv_value(jsonv_p *p, jsonv *v, int depth);

static bool
jsonv_push(jsonv *v, size_t *cap)
{
    if (v->n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        jsonv *ni = realloc(v->items, *cap * sizeof *ni);
        if (!ni)
            abort();
        v->items = ni;
        if (v->type == JSONV_OBJECT) {
            char **nk = realloc(v->keys, *cap * sizeof *nk);
            if (!nk)
                abort();
            v->keys = nk;
        }
    }
    memset(&v->items[v->n], 0, sizeof v->items[v->n]);
    return true;
}

static bool
jsonv_container(jsonv_p *p, jsonv *v, int depth, bool object)
{
    v->type = object ? JSONV_OBJECT : JSONV_ARRAY;
    size_t cap = 0;
    p->pos++;
    jsonv_ws(p);
    if (p->pos < p->len && p->s[p->pos] == (object ? '}' : ']')) {
        p->pos++;
        return true;
    }
    for (;;) {
        jsonv_push(v, &cap);
        if (object) {
            jsonv_ws(p);
            size_t klen;
            if (p->pos >= p->len || p->s[p->pos] != '"')
                return jsonv_fail(p, "expected a key");
            if (!jsonv_string(p, &v->keys[v->n], &klen))
                return false;
            v->n++;         /* the key is owned from here on */
            jsonv_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':')
                return jsonv_fail(p, "expected ':'");
            p->pos++;
            if (!jsonv_value(p, &v->items[v->n - 1], depth + 1))
                return false;
        } else {
            v->n++;
            if (!jsonv_value(p, &v->items[v->n - 1], depth + 1))
                return false;
        }
        jsonv_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == (object ? '}' : ']')) {
            p->pos++;
            return true;
        }
        return jsonv_fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static bool
jsonv_value(jsonv_p *p, jsonv *v, int depth)
{
    if (depth > JSONV_MAX_DEPTH)
        return jsonv_fail(p, "nested too deeply");
    jsonv_ws(p);
    if (p->pos >= p->len)
        return jsonv_fail(p, "expected a value");
    char c = p->s[p->pos];
    static const struct {
        const char *word;
        jsonv_type type;
    } words[] = { { "null", JSONV_NULL }, { "true", JSONV_TRUE }, { "false", JSONV_FALSE } };
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(words[i].word);
        if (p->len - p->pos >= n && memcmp(p->s + p->pos, words[i].word, n) == 0) {
            p->pos += n;
            v->type = words[i].type;
            return true;
        }
    }
    if (c == '{' || c == '[')
        return jsonv_container(p, v, depth, c == '{');
    if (c == '"') {
        v->type = JSONV_STRING;
        return jsonv_string(p, &v->text, &v->len);
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return jsonv_number(p, v);
    return jsonv_fail(p, "unexpected character '%c'", c);
}

static void
jsonv_clear(jsonv *v)
{
    for (size_t i = 0; i < v->n; i++) {
        jsonv_clear(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
}

jsonv *
jsonv_parse(const char *text, size_t len, char *why, size_t why_len)
{
    jsonv_p p = { .s = text, .len = len, .why = why, .why_len = why_len };
    jsonv *v = jsonv_alloc(sizeof *v);
    bool ok = jsonv_value(&p, v, 0);
    if (ok) {
        jsonv_ws(&p);
        if (p.pos != p.len)
            ok = jsonv_fail(&p, "text after the value");
    }
    if (!ok) {
        jsonv_free(v);
        return NULL;
    }
    return v;
}

void
jsonv_free(jsonv *v)
{
    if (!v)
        return;
    jsonv_clear(v);
    free(v);
}

const jsonv *
jsonv_get(const jsonv *v, const char *key)
{
    if (!v || v->type != JSONV_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->keys[i], key) == 0)
            return &v->items[i];
    return NULL;
}

const char *
jsonv_str(const jsonv *v, const char *key)
{
    const jsonv *m = jsonv_get(v, key);
    return m && m->type == JSONV_STRING ? m->text : NULL;
}

bool
jsonv_fixed(const jsonv *v, unsigned decimals, unsigned long long *out)
{
    if (!v || v->type != JSONV_NUMBER || v->text[0] == '-' || strpbrk(v->text, "eE"))
        return false;
    unsigned long long r = 0;
    unsigned frac = 0;
    bool in_frac = false;
    for (const char *c = v->text; *c; c++) {
        if (*c == '.') {
            in_frac = true;
            continue;
        }
        if (in_frac && ++frac > decimals)
            return false;
        r = r * 10 + (unsigned long long)(*c - '0');
    }
    for (; frac < decimals; frac++)
        r *= 10;
    *out = r;
    return true;
}
