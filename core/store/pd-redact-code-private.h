/* pd-redact-code-private.h: what pd-redact-code.c (a pair of a user and
 * a password in code) and pd-redact-code-calls.c (calls that take one)
 * share: the gaps between a call's values and its string literals.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "pd-redact-scan-private.h"

G_BEGIN_DECLS

/* How long a user or a password literal may be. */
#define LITERAL_MAX 256

/* Past blanks and line breaks at @k (and their escapes in a JSON string
 * at @depth 1). */
gsize    _pd_redact_code_gap          (const char *t,
                                       gsize       len,
                                       gsize       k,
                                       guint       depth);
/* A string literal at @k ('…', "…", `…`; \"…\" in a JSON string), its
 * text in [*vs, *ve) of bytes that read as written; its end, or 0. */
gsize    _pd_redact_code_literal_at   (const char *t,
                                       gsize       len,
                                       gsize       k,
                                       guint       depth,
                                       gsize      *vs,
                                       gsize      *ve);
/* A literal or a name (a variable, user.name) at @k: its end, or 0. */
gsize    _pd_redact_code_user_at      (const char *t,
                                       gsize       len,
                                       gsize       k,
                                       guint       depth);
/* Masks the literal's text [vs, ve) when it is a secret that reads as
 * no shell syntax: whether it did. */
gboolean _pd_redact_code_mask_literal (Redactor   *r,
                                       gsize       vs,
                                       gsize       ve);

G_END_DECLS
