/* Unit tests: server/web_json, the websocket message envelope checker. */
#include <check.h>
#include <string.h>
#include "web_json.h"

#define OBJ(s) web_json_is_object((s), strlen(s))

START_TEST(accepts_objects_only)
{
    ck_assert(OBJ("{}"));
    ck_assert(OBJ(" {\"t\":\"resize\",\"w\":80,\"h\":24} \n"));
    ck_assert(OBJ("{\"a\":[1,-2.5e3,true,false,null,{\"b\":\"\\u00e9\\n\"}]}"));
    ck_assert(OBJ("{\"s\":\"caf\xc3\xa9 \xf0\x9f\x90\x89\"}"));
    ck_assert(!OBJ(""));
    ck_assert(!OBJ("[]"));
    ck_assert(!OBJ("\"x\""));
    ck_assert(!OBJ("{\"t\":1} {}"));
    ck_assert(!OBJ("{\"t\":}"));
    ck_assert(!OBJ("{\"t\" 1}"));
    ck_assert(!OBJ("{\"t\":1,}"));
    ck_assert(!OBJ("{t:1}"));
    ck_assert(!OBJ("{\"t\":01}"));
    ck_assert(!OBJ("{\"t\":1.}"));
    ck_assert(!OBJ("{\"t\":tru}"));
    ck_assert(!OBJ("{\"t\":\"\\x\"}"));
    ck_assert(!OBJ("{\"t\":\"\\u12g4\"}"));
    ck_assert(!OBJ("{\"t\":\"a\tb\"}"));         /* raw control character */
    ck_assert(!OBJ("{\"t\":\"\xff\"}"));         /* not UTF-8 */
    ck_assert(!OBJ("{\"t\":\"\xc0\xaf\"}"));     /* overlong */
    ck_assert(!OBJ("{\"t\":\"\xed\xa0\x80\"}")); /* surrogate */
    ck_assert(!OBJ("{\"t\":\"\xe2\x82\"}"));     /* truncated */
    ck_assert(!OBJ("{\"t\":\"abc"));
    const char nul[] = "{\"t\":\"a\0b\"}";
    ck_assert(!web_json_is_object(nul, sizeof nul - 1));
}
END_TEST

START_TEST(depth_is_limited)
{
    char deep[256];
    size_t n = 0;
    deep[n++] = '{';
    memcpy(deep + n, "\"a\":", 4);
    n += 4;
    for (int i = 0; i < 40; i++)
        deep[n++] = '[';
    for (int i = 0; i < 40; i++)
        deep[n++] = ']';
    deep[n++] = '}';
    ck_assert(!web_json_is_object(deep, n));
    ck_assert(OBJ("{\"a\":[[[[[[[[1]]]]]]]]}"));
}
END_TEST

START_TEST(members)
{
    const char *m =
        "{\"x\":{\"t\":\"inner\"},\"t\":\"resize\",\"w\":120,\"h\":-3,\"big\":12345678901234}";
    size_t n = strlen(m);
    ck_assert(web_json_is_object(m, n));
    const char *v;
    size_t vl;
    ck_assert_int_eq(web_json_member(m, n, "x", &v, &vl), 0);
    ck_assert_uint_eq(vl, 13);
    ck_assert(web_json_str_is(m, n, "t", "resize")); /* top level, not the nested one */
    ck_assert(!web_json_str_is(m, n, "t", "inner"));
    ck_assert(!web_json_str_is(m, n, "w", "120"));
    long out = 0;
    ck_assert_int_eq(web_json_int(m, n, "w", 1, 1000, &out), 0);
    ck_assert_int_eq(out, 120);
    ck_assert_int_eq(web_json_int(m, n, "h", 1, 1000, &out), -1);
    ck_assert_int_eq(web_json_int(m, n, "h", -10, 10, &out), 0);
    ck_assert_int_eq(out, -3);
    ck_assert_int_eq(web_json_int(m, n, "big", 0, 2000000000, &out), -1);
    ck_assert_int_eq(web_json_int(m, n, "t", 0, 10, &out), -1);
    ck_assert_int_eq(web_json_member(m, n, "none", &v, &vl), -1);
    const char *f = "{\"w\":1.5,\"h\":\"2\"}";
    ck_assert_int_eq(web_json_int(f, strlen(f), "w", 0, 10, &out), -1);
    ck_assert_int_eq(web_json_int(f, strlen(f), "h", 0, 10, &out), -1);
}
END_TEST

START_TEST(strings_and_bools)
{
    const char *m = "{\"a\":\"x<b>\\\"\\n\\u00e9\\ud83d\\ude00\\ud800z\",\"n\":5,\"on\":true,"
                    "\"off\":false,\"e\":\"\"}";
    size_t n = strlen(m);
    ck_assert(web_json_is_object(m, n));
    char out[64];
    int len = web_json_string(m, n, "a", out, sizeof out);
    const char *want = "x<b>\"\n\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdz";
    ck_assert_int_eq(len, (int)strlen(want));
    ck_assert_str_eq(out, want);
    ck_assert_int_eq(web_json_string(m, n, "a", out, (size_t)len), -1); /* no room for the NUL */
    ck_assert_int_eq(web_json_string(m, n, "a", out, (size_t)len + 1), len);
    ck_assert_int_eq(web_json_string(m, n, "n", out, sizeof out), -1);
    ck_assert_int_eq(web_json_string(m, n, "none", out, sizeof out), -1);
    ck_assert_int_eq(web_json_string(m, n, "e", out, sizeof out), 0);
    ck_assert_str_eq(out, "");
    bool b = false;
    ck_assert_int_eq(web_json_bool(m, n, "on", &b), 0);
    ck_assert(b);
    ck_assert_int_eq(web_json_bool(m, n, "off", &b), 0);
    ck_assert(!b);
    ck_assert_int_eq(web_json_bool(m, n, "n", &b), -1);
}
END_TEST

Suite *suite_server_web_json(void)
{
    Suite *s = suite_create("server.web_json");
    TCase *t = tcase_create("core");
    tcase_add_test(t, accepts_objects_only);
    tcase_add_test(t, depth_is_limited);
    tcase_add_test(t, members);
    tcase_add_test(t, strings_and_bools);
    suite_add_tcase(s, t);
    return s;
}
