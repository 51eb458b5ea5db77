/* pd-ui-util-private.h: small helpers the inspector views share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "pd-plan.h"

G_BEGIN_DECLS

char       *_pd_format_local_time      (gint64              unix_usec);
void        _pd_follow_bottom          (GtkScrolledWindow  *scroller);
gboolean    _pd_is_following_bottom    (GtkScrolledWindow  *scroller);
const char *_pd_step_status_icon_name  (PdPlanStepStatus    status);
const char *_pd_check_status_label     (PdPlanCheckStatus   status);
const char *_pd_event_type_label       (const char         *type);
GtkWidget  *_pd_plain_label            (const char         *text,
                                        const char         *css_class);
char       *_pd_file_chooser_take_path (GtkNativeDialog    *chooser,
                                        int                 response);
char       *_pd_isolated_line          (const char         *text);

G_END_DECLS
