/* pd-redact-patterns-private.h: the patterns pd-redact.c tries.
 *
 * pd-redact-patterns.c holds the regular expressions, one per shape of a
 * secret, each tried anchored where pd-redact.c's scan found its start;
 * how they read quotes and backslashes is said there, pattern by pattern.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The short options curl takes without an argument, which may stand
 * grouped before its -u or -U: curl -fsSu user:PASSWORD. */
#define CURL_FLAGS "0123456#BfGgIiJjkLlMNnOpqRSsvZ"

/* Each pattern is tried anchored where the scan found its start; group
 * "v" is what is replaced (the whole match when there is none). */
enum {
  RE_KEY,
  RE_AUTH,
  RE_BEARER,
  RE_CURL,
  RE_HOOK,
  RE_USERINFO,
  RE_USERTOKEN,
  RE_NETRC,
  RE_GLUED,
  RE_SPACED,
  RE_GLUED_WP,
  RE_GROUPED_CAP_P,
  RE_KEYGEN,
  RE_GLUED_K,
  RE_SMB,
  RE_ASSIGN,
  RE_PASSARG,
  RE_LFTP,
  RE_ORACLE,
  RE_XML,
  RE_COOKIE,
  N_RE
};

/* How deep in JSON strings the patterns read a value as the shell's
 * (pd-redact-private.h's depths): deeper, no pattern is tried. */
#define PD_REDACT_PATTERN_DEPTH 4

/* The pattern @which (RE_*), compiled once, and the numbers of its groups
 * "s" and "v" (-1 when it has none), as read at @depth in JSON strings;
 * NULL deeper than PD_REDACT_PATTERN_DEPTH. */
GRegex *_pd_redact_get_regex (guint  which,
                              guint  depth,
                              int   *s_group,
                              int   *v_group);

G_END_DECLS
