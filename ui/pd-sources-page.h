/* pd-sources-page.h: the Sources page of Preferences
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define PD_TYPE_SOURCES_PAGE (pd_sources_page_get_type ())

G_DECLARE_FINAL_TYPE (PdSourcesPage, pd_sources_page, PD, SOURCES_PAGE, AdwPreferencesPage)

AdwPreferencesPage *pd_sources_page_new      (GSettings     *settings);
char               *pd_sources_page_add      (PdSourcesPage *self,
                                              const char    *url,
                                              const char    *name,
                                              const char    *token,
                                              GError       **error);
gboolean            pd_sources_page_rename   (PdSourcesPage *self,
                                              const char    *id,
                                              const char    *name);
gboolean            pd_sources_page_remove   (PdSourcesPage *self,
                                              const char    *id);
void                pd_sources_page_set_token (PdSourcesPage *self,
                                              const char    *url,
                                              const char    *token);
gboolean            pd_sources_move_url_tokens (GSettings   *settings);
void                pd_sources_give_token    (const char    *url,
                                              const char    *token);
char               *pd_sources_dup_unkept_warning (void);
gboolean            pd_sources_token_check_pending (const char *url);
char               *pd_sources_lookup_token_finish (GAsyncResult  *result,
                                                    const char    *url,
                                                    GError       **error);

G_END_DECLS
