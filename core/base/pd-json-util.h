/* pd-json-util.h: typed reads of JSON members, the one home of them.
 *
 * JSON reaches Plandeck from everywhere — other agents' transcripts, model
 * answers, remote servers, request bodies, our own stored rows — and every
 * reader needs the same few questions answered without a warning or a crash:
 * "the string this member holds, if it is one".  These getters answer them:
 *
 *  - the object may be NULL, and a missing parent reads as a missing member,
 *    so chains such as pd_json_get_string (pd_json_get_object (o, "a"), "b")
 *    need no checks between the steps;
 *  - a member's type is checked before it is read: a member of another type
 *    reads as missing (NULL, or the fallback);
 *  - nothing here logs, asserts or fails: what to do about a missing or
 *    mistyped member is the caller's decision (strict readers use
 *    pd_json_get_optional_string() to tell "absent" from "of another type").
 *
 * No state; thread-safe on objects no other thread changes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The string a node holds, or NULL (no node, or not a string). */
const char *pd_json_node_get_string    (JsonNode    *node);

/* The member's node of any type, or NULL (no object, or no such member). */
JsonNode   *pd_json_get_member         (JsonObject  *object,
                                        const char  *member);
const char *pd_json_get_string         (JsonObject  *object,
                                        const char  *member);
JsonObject *pd_json_get_object         (JsonObject  *object,
                                        const char  *member);
JsonArray  *pd_json_get_array          (JsonObject  *object,
                                        const char  *member);
/* @fallback when the member is missing or not true or false. */
gboolean    pd_json_get_boolean        (JsonObject  *object,
                                        const char  *member,
                                        gboolean     fallback);
/* An integer; a number written with a fraction or an exponent is truncated
 * toward zero when it fits in gint64 (converting one beyond is undefined
 * behaviour in C, so such a number reads as missing).  @fallback otherwise. */
gint64      pd_json_get_int            (JsonObject  *object,
                                        const char  *member,
                                        gint64       fallback);
/* An identifier as agents write them: a non-empty string, or an integer
 * spelled in decimal ("7" for 7).  NULL otherwise. */
char       *pd_json_dup_id             (JsonObject  *object,
                                        const char  *member);

/* An array's element @index as an object, or NULL (no array, past its end,
 * or an element of another type; json_array_get_object_element() would be
 * a critical for a number or an array there). */
JsonObject *pd_json_array_get_object   (JsonArray   *array,
                                        guint        index);
/* An array's element @index as an integer (as pd_json_get_int() reads a
 * member); @fallback when there is none or it is not a number. */
gint64      pd_json_array_get_int      (JsonArray   *array,
                                        guint        index,
                                        gint64       fallback);

/* The text of a chat message's content: "" when there is none (no node,
 * or null), the string it is, or, for a content in parts, the "text"
 * members of the parts' objects joined by @separator (put between two
 * texts once there is any text; other elements are passed over).  NULL
 * for anything else: the caller decides how to show it. */
char       *pd_json_content_text       (JsonNode    *content,
                                        const char  *separator);

/* For readers that refuse what they do not understand: TRUE when the member
 * is absent or null (*@value = NULL) or a string (*@value = it); FALSE, with
 * *@value = NULL, when it is anything else. */
gboolean    pd_json_get_optional_string (JsonObject  *object,
                                         const char  *member,
                                         const char **value);

G_END_DECLS
