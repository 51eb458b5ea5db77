/* pd-secret-text.h: keys and tokens that leave no copy behind
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A freed string stays in the heap until something else takes its place:
 * a core dump, /proc/PID/mem or a later read past a bug shows it there.
 * An API key is overwritten before it is freed.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void  pd_secret_text_wipe    (char        *text);
void  pd_secret_text_free    (char        *text);
void  pd_secret_text_replace (char       **field,
                              const char  *value);

/* Values this process must never store or print, whatever their shape:
 * the API keys it sends, the password and token of a URL it was given. */
#define PD_SECRET_TEXT_MIN_LENGTH 8

void  pd_secret_text_register      (const char  *value);
void  pd_secret_text_unregister    (const char  *value);
void  pd_secret_text_register_url  (const char  *url);
void  pd_secret_text_unregister_url (const char  *url);
char *pd_secret_text_mask          (const char  *text,
                                    guint       *n_masked);
char *pd_secret_text_shown_url     (const char  *url);

G_END_DECLS
