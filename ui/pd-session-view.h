/* pd-session-view.h: the base of every view of one session
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-source.h"

G_BEGIN_DECLS

#define PD_TYPE_SESSION_VIEW (pd_session_view_get_type ())

G_DECLARE_DERIVABLE_TYPE (PdSessionView, pd_session_view, PD, SESSION_VIEW, GtkWidget)

typedef struct _PdSessionViewRequest PdSessionViewRequest;

struct _PdSessionViewClass
{
  GtkWidgetClass parent_class;

  /* Start reading what the view shows for request->session_id from
   * request->source; hand the request to the callbacks and end with
   * pd_session_view_reload_done().  Never called while a reload of the
   * same view is in flight: asks made meanwhile are merged into one. */
  void (*reload) (PdSessionView        *self,
                  PdSessionViewRequest *request);
  /* Forget what is shown: the source or the session changed. */
  void (*clear)  (PdSessionView        *self);

  /*< private >*/
  gpointer padding[8];
};

/* What a reload's callbacks get: the view (valid while the request is
 * current), the source and session it was made for, and its cancellable. */
struct _PdSessionViewRequest
{
  PdSessionView *view;
  PdSource      *source;
  char          *session_id;
  GCancellable  *cancellable;
};

void        pd_session_view_class_set_polls (PdSessionViewClass   *klass,
                                             gboolean              polls);
void        pd_session_view_class_set_reads_hidden (PdSessionViewClass *klass,
                                                    gboolean            reads_hidden);

PdSource   *pd_session_view_get_source      (PdSessionView        *self);
void        pd_session_view_set_source      (PdSessionView        *self,
                                             PdSource             *source);
const char *pd_session_view_get_session_id  (PdSessionView        *self);
void        pd_session_view_set_session_id  (PdSessionView        *self,
                                             const char           *session_id);
gboolean    pd_session_view_get_running     (PdSessionView        *self);
void        pd_session_view_set_running     (PdSessionView        *self,
                                             gboolean              running);
void        pd_session_view_reload          (PdSessionView        *self);
void        pd_session_view_queue_reload    (PdSessionView        *self);
gboolean    pd_session_view_get_busy        (PdSessionView        *self);
gboolean    pd_session_view_get_visible_now (PdSessionView        *self);
const char *pd_session_view_get_error       (PdSessionView        *self);
guint       pd_session_view_get_n_reloads   (PdSessionView        *self);
GObject    *pd_session_view_get_poll_timer  (PdSessionView        *self);

/* For the views that derive from PdSessionView. */
PdSessionViewRequest *pd_session_view_request_copy     (PdSessionViewRequest *request);
gboolean              pd_session_view_request_is_current (PdSessionViewRequest *request);
void                  pd_session_view_request_free     (PdSessionViewRequest *request);
void                  pd_session_view_reload_done      (PdSessionViewRequest *request,
                                                        const GError         *error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdSessionViewRequest, pd_session_view_request_free)

G_END_DECLS
