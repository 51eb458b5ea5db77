/* pd-notifier-private.h: PdNotifier's text cutting, its sandbox test and
 * its clock (the last two for tests)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-notifier.h"

G_BEGIN_DECLS

/* Looks for stalled checklists as if it were @now_usec (unix µs) instead of
 * waiting for the periodic check; tests move time forward with it. */
void _pd_notifier_check_stalled (PdNotifier *self,
                                 gint64      now_usec);

/* How much of anyone's text (a title, a step, a failure's reason) a
 * notification quotes, in characters. */
#define PD_NOTIFY_QUOTE_CHARS 120

char    *_pd_notifier_cut_quote        (const char *text);
char    *_pd_notifier_quote_title      (const char *title);
char    *_pd_notifier_quote_text       (const char *text);

/* Where the Flatpak sandbox's mark is looked for (NULL: /.flatpak-info). */
void     _pd_notifier_set_flatpak_info (const char *path);
gboolean _pd_notifier_in_sandbox       (void);

G_END_DECLS
