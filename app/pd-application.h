/* pd-application.h: the Plandeck desktop application
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define PD_TYPE_APPLICATION (pd_application_get_type ())

G_DECLARE_FINAL_TYPE (PdApplication, pd_application, PD, APPLICATION, AdwApplication)

void           pd_application_set_process_name     (void);
PdApplication *pd_application_new                   (void);
char          *pd_application_default_database_path (void);

G_END_DECLS
