/* pd-run-controller.c: the embedded engine of one window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A window on a local database owns one PdRunController, and the controller
 * owns one PdEngine at a time.  The engine is built by the core
 * PdEngineBuilder in a worker thread (it opens its own connection to the
 * source's database, so the window's source sees its commits like those of
 * any other writer), runs with pd_engine_run_async,
 * and reports on its own threads.  Everything that reaches the controller
 * from those threads goes through a Channel: a reference-counted link to
 * the main context and a weak reference to the controller, dereferenced on
 * the main thread only.
 *
 * Questions for a person (approve this call? approve this plan?) come from
 * tool worker threads and block there until answered.  The worker queues
 * the question on the main context and waits on a condition variable; the
 * main thread shows an AdwMessageDialog and answers.  Stop and dispose
 * answer every open question (deny, dismissed), so no worker waits forever.
 *
 * A window on a `serve` endpoint owns one too, made with
 * pd_run_controller_new_for_remote(): its runs go on there (the server's
 * engine, folder and limits), started and continued through the
 * PdRemoteSource, followed with GET /api/runs/ID, and the question a run
 * waits on is shown in the same dialog as a local run's and answered with
 * POST /api/runs/ID/approval.  Everything is asynchronous on the main
 * context; nothing blocks.  Stop cancels the run there; closing the window
 * leaves it running (its question times out there, denied).
 */
#define G_LOG_DOMAIN "pd-run-controller"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-config.h"
#include "pd-engine-builder.h"
#include "pd-provider.h"
#include "pd-remote-source.h"
#include "pd-run-controller.h"

#define STATUS_TEXT_MAX 600
#define TRANSCRIPT_MAX  (64 * 1024)
/* How often a remote run is asked how it goes. */
#define REMOTE_POLL_MS  250

/* --- settings ------------------------------------------------------------- */

G_DEFINE_BOXED_TYPE (PdRunSettings, pd_run_settings, pd_run_settings_copy, pd_run_settings_free)

PdRunSettings *
pd_run_settings_new (void)
{
  PdRunSettings *self = g_new0 (PdRunSettings, 1);

  self->provider = g_strdup ("openai");
  self->planning = TRUE;
  self->policy = PD_APPROVAL_POLICY_ASK;

  return self;
}

PdRunSettings *
pd_run_settings_copy (const PdRunSettings *self)
{
  PdRunSettings *copy = g_new0 (PdRunSettings, 1);

  copy->provider = g_strdup (self->provider);
  copy->base_url = g_strdup (self->base_url);
  copy->model = g_strdup (self->model);
  copy->api_key = g_strdup (self->api_key);
  copy->api_key_env = g_strdup (self->api_key_env);
  copy->replay_path = g_strdup (self->replay_path);
  copy->working_directory = g_strdup (self->working_directory);
  copy->planning = self->planning;
  copy->policy = self->policy;

  return copy;
}

void
pd_run_settings_free (PdRunSettings *self)
{
  if (self == NULL)
    return;

  g_free (self->provider);
  g_free (self->base_url);
  g_free (self->model);
  if (self->api_key != NULL)
    memset (self->api_key, 0, strlen (self->api_key));
  g_free (self->api_key);
  g_free (self->api_key_env);
  g_free (self->replay_path);
  g_free (self->working_directory);
  g_free (self);
}

static char *
nonempty (const char *text)
{
  return text != NULL && *text != '\0' ? g_strdup (text) : NULL;
}

/**
 * pd_run_settings_new_from_gsettings:
 * @profile: (nullable): a profile name; %NULL for the default profile
 *
 * Returns: (transfer full): the settings of a provider profile, with the
 *   remembered working directory, planning and approval policy
 */
PdRunSettings *
pd_run_settings_new_from_gsettings (GSettings  *settings,
                                    const char *profile)
{
  PdRunSettings *self = pd_run_settings_new ();
  g_autoptr(GVariant) profiles = g_settings_get_value (settings, "provider-profiles");
  g_autofree char *wanted = profile ? g_strdup (profile) : g_settings_get_string (settings, "default-profile");
  g_autofree char *policy = g_settings_get_string (settings, "last-approval-policy");
  g_autofree char *cwd = g_settings_get_string (settings, "last-working-directory");
  GVariantIter iter;
  const char *name, *kind, *base_url, *model, *env;
  gboolean first = TRUE;

  g_variant_iter_init (&iter, profiles);
  while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", &name, &kind, &base_url, &model, &env))
    {
      if (first || g_strcmp0 (name, wanted) == 0)
        {
          g_free (self->provider);
          self->provider = g_strdup (kind);
          g_free (self->base_url);
          self->base_url = nonempty (base_url);
          g_free (self->model);
          self->model = nonempty (model);
          g_free (self->api_key_env);
          self->api_key_env = nonempty (env);
        }
      if (g_strcmp0 (name, wanted) == 0)
        break;
      first = FALSE;
    }

  self->planning = g_settings_get_boolean (settings, "last-planning");
  pd_approval_policy_from_string (policy, &self->policy);
  self->working_directory = cwd[0] != '\0' ? g_steal_pointer (&cwd) : g_strdup (g_get_home_dir ());

  return self;
}

/* --- the channel from worker threads --------------------------------------- */

typedef struct
{
  gatomicrefcount  ref;
  GWeakRef         controller;
  GMainContext    *context;
} Channel;

static Channel *
channel_new (PdRunController *controller)
{
  Channel *channel = g_new0 (Channel, 1);

  g_atomic_ref_count_init (&channel->ref);
  g_weak_ref_init (&channel->controller, controller);
  channel->context = g_main_context_ref_thread_default ();

  return channel;
}

static Channel *
channel_ref (Channel *channel)
{
  g_atomic_ref_count_inc (&channel->ref);
  return channel;
}

static void
channel_unref (Channel *channel)
{
  if (g_atomic_ref_count_dec (&channel->ref))
    {
      g_weak_ref_clear (&channel->controller);
      g_main_context_unref (channel->context);
      g_free (channel);
    }
}

/* --- the controller ------------------------------------------------------- */

typedef enum
{
  QUESTION_APPROVAL,
  QUESTION_REVIEW,
} QuestionKind;

typedef struct
{
  gatomicrefcount  ref;
  QuestionKind     kind;
  Channel         *channel;
  char            *tool;
  char            *text;

  GMutex           mutex;
  GCond            cond;
  gboolean         answered;
  int              answer;     /* TRUE/FALSE, or a PdPlanReviewAnswer */
  char            *feedback;
  PdRemoteRun     *remote_run; /* (nullable) a remote run's question: answered over HTTP */

  GtkWidget       *dialog;     /* main thread only */
} Question;

struct _PdRunController
{
  GObject        parent_instance;

  PdLocalSource *source;       /* (nullable) a local database's window */
  PdRemoteSource *remote;      /* (nullable) an endpoint's window */
  GtkWindow     *parent;       /* weak */
  Channel       *channel;

  PdEngine      *engine;
  GCancellable  *cancellable;
  gboolean       running;
  char          *session_id;
  GString       *status_text;
  gboolean       status_stale;  /* a tool ran since: the next text starts anew */
  char          *activity;
  GString       *transcript;

  GHashTable    *always;       /* tool names approved for the session */
  GPtrArray     *questions;    /* (element-type Question) open, main thread */

  /* A remote run: the last word on it, the question asked of it, the
   * calls in flight (cancelled only when the controller goes). */
  PdRemoteRun   *remote_run;
  char          *remote_asked;
  GCancellable  *remote_calls;
  guint          remote_poll;
  gboolean       remote_stop;  /* stopped before the server named the run */
};

G_DEFINE_FINAL_TYPE (PdRunController, pd_run_controller, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_RUNNING,
  PROP_SESSION_ID,
  PROP_STATUS_TEXT,
  PROP_ACTIVITY,
  N_PROPS
};

enum {
  SESSION_STARTED,
  FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* The window's source hears of this engine's commits from its events at
 * once (file monitor or not), and no more from an engine replaced. */
static void
pd_run_controller_set_engine (PdRunController *self,
                              PdEngine        *engine)
{
  if (self->engine == engine)
    return;
  if (self->engine != NULL && pd_engine_get_bus (self->engine) != NULL)
    pd_local_source_unfollow_bus (self->source, pd_engine_get_bus (self->engine));
  g_set_object (&self->engine, engine);
  if (engine != NULL && pd_engine_get_bus (engine) != NULL)
    pd_local_source_follow_bus (self->source, pd_engine_get_bus (engine));
}

static Question *
question_ref (Question *question)
{
  g_atomic_ref_count_inc (&question->ref);
  return question;
}

static void
question_unref (Question *question)
{
  if (g_atomic_ref_count_dec (&question->ref))
    {
      channel_unref (question->channel);
      g_free (question->tool);
      g_free (question->text);
      g_free (question->feedback);
      g_clear_pointer (&question->remote_run, pd_remote_run_free);
      g_mutex_clear (&question->mutex);
      g_cond_clear (&question->cond);
      g_free (question);
    }
}

/* Main thread: hands the answer to the waiting worker, once. */
static void
question_answer (Question   *question,
                 int         answer,
                 const char *feedback)
{
  g_mutex_lock (&question->mutex);
  if (!question->answered)
    {
      question->answered = TRUE;
      question->answer = answer;
      question->feedback = g_strdup (feedback);
      g_cond_signal (&question->cond);
    }
  g_mutex_unlock (&question->mutex);
}

static int
question_dismissed_answer (Question *question)
{
  return question->kind == QUESTION_APPROVAL ? FALSE : PD_PLAN_REVIEW_DISMISSED;
}

static void
pd_run_controller_close_question (PdRunController *self,
                                  Question        *question)
{
  GtkWidget *dialog = g_steal_pointer (&question->dialog);

  if (dialog != NULL)
    {
      g_signal_handlers_disconnect_by_data (dialog, question);
      gtk_window_destroy (GTK_WINDOW (dialog));
    }
  g_ptr_array_remove (self->questions, question);
}

/* Stop and dispose: nobody will answer the open questions any more. */
static void
pd_run_controller_dismiss_questions (PdRunController *self)
{
  while (self->questions->len > 0)
    {
      Question *question = g_ptr_array_index (self->questions, 0);

      question_answer (question, question_dismissed_answer (question), NULL);
      pd_run_controller_close_question (self, question);
    }
}

static void pd_run_controller_answer_remote (PdRunController   *self,
                                             const PdRemoteRun *run,
                                             gboolean           allow);

static void
on_approval_response (AdwMessageDialog *dialog,
                      const char       *response,
                      Question         *question)
{
  g_autoptr(PdRunController) self = g_weak_ref_get (&question->channel->controller);
  gboolean allow = g_strcmp0 (response, "once") == 0 || g_strcmp0 (response, "always") == 0;

  if (self != NULL && g_strcmp0 (response, "always") == 0)
    g_hash_table_add (self->always, g_strdup (question->tool));

  /* A remote run waits on its server, which is told; a local one on a
   * worker thread of ours. */
  if (self != NULL && question->remote_run != NULL)
    pd_run_controller_answer_remote (self, question->remote_run, allow);
  question_answer (question, allow, NULL);
  question->dialog = NULL;
  if (self != NULL)
    g_ptr_array_remove (self->questions, question);
}

static const char *
describe_tool (const char *tool)
{
  if (g_strcmp0 (tool, "shell") == 0)
    return _("The agent wants to run a command.");
  if (g_strcmp0 (tool, "write_file") == 0)
    return _("The agent wants to write a file.");
  if (g_strcmp0 (tool, "edit_file") == 0)
    return _("The agent wants to edit a file.");
  return NULL;
}

static GtkWidget *
monospace_block (const char *text)
{
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *label = gtk_label_new (text);

  /* Model-derived text: a plain label, never markup. */
  gtk_label_set_use_markup (GTK_LABEL (label), FALSE);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "monospace");
  gtk_widget_add_css_class (label, "pd-approval-command");

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroller), 240);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), label);
  gtk_widget_add_css_class (scroller, "card");

  return scroller;
}

static void
pd_run_controller_ask_approval (PdRunController *self,
                                Question        *question)
{
  GtkWidget *dialog;
  const char *body = describe_tool (question->tool);
  g_autofree char *generic = NULL;

  if (body == NULL)
    /* Translators: %s is the name of a tool, such as shell */
    body = generic = g_strdup_printf (_("The agent wants to use the tool “%s”."), question->tool);

  dialog = adw_message_dialog_new (self->parent, _("Allow This Change?"), body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "deny", _("_Deny"),
                                    "always", _("Always for This _Session"),
                                    "once", _("_Approve Once"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "deny",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "once",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "once");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "deny");
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), monospace_block (question->text));
  gtk_widget_add_css_class (dialog, "pd-approval-dialog");

  question->dialog = dialog;
  g_signal_connect (dialog, "response", G_CALLBACK (on_approval_response), question);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* A small markdown rendering with text tags: headings, bullets and code
 * blocks.  The text is inserted as text; nothing is read as markup. */
static void
render_markdown (GtkTextBuffer *buffer,
                 const char    *markdown)
{
  g_auto(GStrv) lines = g_strsplit (markdown, "\n", -1);
  gboolean in_code = FALSE;
  GtkTextIter end;

  gtk_text_buffer_create_tag (buffer, "h1", "weight", PANGO_WEIGHT_BOLD, "scale", 1.4,
                              "pixels-below-lines", 6, NULL);
  gtk_text_buffer_create_tag (buffer, "h2", "weight", PANGO_WEIGHT_BOLD, "scale", 1.2,
                              "pixels-above-lines", 6, "pixels-below-lines", 4, NULL);
  gtk_text_buffer_create_tag (buffer, "h3", "weight", PANGO_WEIGHT_BOLD, NULL);
  gtk_text_buffer_create_tag (buffer, "code", "family", "monospace", "left-margin", 12, NULL);
  gtk_text_buffer_create_tag (buffer, "item", "left-margin", 12, "indent", -12, NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      const char *tag = NULL;
      g_autofree char *shown = NULL;

      gtk_text_buffer_get_end_iter (buffer, &end);

      if (g_str_has_prefix (line, "```"))
        {
          in_code = !in_code;
          continue;
        }

      if (in_code)
        {
          tag = "code";
          shown = g_strdup (line);
        }
      else if (line[0] == '#')
        {
          guint level = 0;

          while (line[level] == '#')
            level++;
          tag = level == 1 ? "h1" : level == 2 ? "h2" : "h3";
          shown = g_strdup (g_strchug ((char *) line + level));
        }
      else if (g_str_has_prefix (line + strspn (line, " "), "- ") ||
               g_str_has_prefix (line + strspn (line, " "), "* "))
        {
          tag = "item";
          shown = g_strconcat ("\xe2\x80\xa2 ", line + strspn (line, " ") + 2, NULL);
        }
      else
        {
          shown = g_strdup (line);
        }

      if (tag != NULL)
        gtk_text_buffer_insert_with_tags_by_name (buffer, &end, shown, -1, tag, NULL);
      else
        gtk_text_buffer_insert (buffer, &end, shown, -1);

      if (lines[i + 1] != NULL)
        {
          gtk_text_buffer_get_end_iter (buffer, &end);
          gtk_text_buffer_insert (buffer, &end, "\n", -1);
        }
    }
}

static void
on_review_response (AdwMessageDialog *dialog,
                    const char       *response,
                    Question         *question)
{
  g_autoptr(PdRunController) self = g_weak_ref_get (&question->channel->controller);
  GtkEditable *feedback = g_object_get_data (G_OBJECT (dialog), "feedback");
  PdPlanReviewAnswer answer = PD_PLAN_REVIEW_DISMISSED;

  if (g_strcmp0 (response, "approve") == 0)
    answer = PD_PLAN_REVIEW_APPROVE;
  else if (g_strcmp0 (response, "keep") == 0)
    answer = PD_PLAN_REVIEW_KEEP_PLANNING;

  question_answer (question, answer,
                   answer == PD_PLAN_REVIEW_KEEP_PLANNING ? gtk_editable_get_text (feedback) : NULL);
  question->dialog = NULL;
  if (self != NULL)
    g_ptr_array_remove (self->questions, question);
}

static void
pd_run_controller_ask_review (PdRunController *self,
                              Question        *question)
{
  GtkWidget *dialog;
  GtkWidget *box;
  GtkWidget *scroller;
  GtkWidget *view;
  GtkWidget *entry;

  dialog = adw_message_dialog_new (self->parent, _("Review the Plan"),
                                   _("Approve it to leave plan mode and let the agent carry it out, or keep planning and tell the agent what to change."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "keep", _("_Keep Planning"),
                                    "approve", _("_Approve"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "approve",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "approve");
  /* Closing the dialog answers "dismissed". */
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "dismiss");
  gtk_widget_add_css_class (dialog, "pd-review-dialog");

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);

  view = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 12);
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Proposed plan"), -1);
  render_markdown (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), question->text);
  g_object_set_data_full (G_OBJECT (dialog), "markdown", g_strdup (question->text), g_free);

  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroller), 260);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_widget_add_css_class (scroller, "card");
  gtk_widget_add_css_class (scroller, "pd-plan-review");
  gtk_box_append (GTK_BOX (box), scroller);

  entry = gtk_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _("What should change (for Keep Planning)"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Feedback"), -1);
  gtk_box_append (GTK_BOX (box), entry);
  g_object_set_data (G_OBJECT (dialog), "feedback", entry);

  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), box);

  question->dialog = dialog;
  g_signal_connect (dialog, "response", G_CALLBACK (on_review_response), question);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* Main thread: a worker asks. */
static gboolean
ask_on_main (gpointer data)
{
  Question *question = data;
  g_autoptr(PdRunController) self = g_weak_ref_get (&question->channel->controller);

  if (self == NULL)
    {
      question_answer (question, question_dismissed_answer (question), NULL);
      return G_SOURCE_REMOVE;
    }

  if (question->kind == QUESTION_APPROVAL && g_hash_table_contains (self->always, question->tool))
    {
      question_answer (question, TRUE, NULL);
      return G_SOURCE_REMOVE;
    }

  if (g_cancellable_is_cancelled (self->cancellable))
    {
      question_answer (question, question_dismissed_answer (question), NULL);
      return G_SOURCE_REMOVE;
    }

  g_ptr_array_add (self->questions, question_ref (question));
  if (question->kind == QUESTION_APPROVAL)
    pd_run_controller_ask_approval (self, question);
  else
    pd_run_controller_ask_review (self, question);

  return G_SOURCE_REMOVE;
}

/* Worker thread: queues @question on the main context and waits. */
static void
ask_and_wait (Question *question)
{
  g_main_context_invoke_full (question->channel->context, G_PRIORITY_DEFAULT, ask_on_main,
                              question_ref (question), (GDestroyNotify) question_unref);

  g_mutex_lock (&question->mutex);
  while (!question->answered)
    g_cond_wait (&question->cond, &question->mutex);
  g_mutex_unlock (&question->mutex);
}

static Question *
question_new (QuestionKind  kind,
              Channel      *channel,
              const char   *tool,
              const char   *text)
{
  Question *question = g_new0 (Question, 1);

  g_atomic_ref_count_init (&question->ref);
  question->kind = kind;
  question->channel = channel_ref (channel);
  question->tool = g_strdup (tool);
  question->text = g_strdup (text);
  g_mutex_init (&question->mutex);
  g_cond_init (&question->cond);

  return question;
}

/* PdApprovalFunc: on a tool worker thread. */
static gboolean
approve_on_worker (const char *tool,
                   const char *summary,
                   gpointer    user_data)
{
  Question *question = question_new (QUESTION_APPROVAL, user_data, tool, summary);
  gboolean allow;

  ask_and_wait (question);
  allow = question->answer;
  question_unref (question);

  return allow;
}

/* PdPlanReviewFunc: on a tool worker thread. */
static PdPlanReviewAnswer
review_on_worker (const char  *markdown,
                  char       **feedback,
                  gpointer     user_data)
{
  Question *question = question_new (QUESTION_REVIEW, user_data, "exit_plan_mode", markdown);
  PdPlanReviewAnswer answer;

  ask_and_wait (question);
  answer = question->answer;
  if (feedback != NULL)
    *feedback = g_steal_pointer (&question->feedback);
  question_unref (question);

  return answer;
}

/* --- progress ------------------------------------------------------------- */

typedef struct
{
  Channel          *channel;
  PdEngineProgress  kind;
  char             *text;
} Progress;

static void
progress_free (Progress *progress)
{
  channel_unref (progress->channel);
  g_free (progress->text);
  g_free (progress);
}

static void
pd_run_controller_set_session_id (PdRunController *self,
                                  const char      *session_id)
{
  if (g_strcmp0 (self->session_id, session_id) == 0)
    return;

  if (self->session_id != NULL)
    g_hash_table_remove_all (self->always);
  g_free (self->session_id);
  self->session_id = g_strdup (session_id);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION_ID]);
}

static void
append_transcript (PdRunController *self,
                   const char      *text)
{
  g_string_append (self->transcript, text);
  if (self->transcript->len > TRANSCRIPT_MAX)
    g_string_erase (self->transcript, 0, self->transcript->len - TRANSCRIPT_MAX);
}

static gboolean
progress_on_main (gpointer data)
{
  Progress *progress = data;
  g_autoptr(PdRunController) self = g_weak_ref_get (&progress->channel->controller);

  if (self == NULL)
    return G_SOURCE_REMOVE;

  switch (progress->kind)
    {
    case PD_ENGINE_PROGRESS_TEXT:
      /* The text of a turn stays up while its tools run. */
      if (self->status_stale)
        g_string_truncate (self->status_text, 0);
      self->status_stale = FALSE;
      g_string_append (self->status_text, progress->text);
      if (self->status_text->len > STATUS_TEXT_MAX)
        {
          /* Keep the tail, cut at a character boundary. */
          const char *start = self->status_text->str + self->status_text->len - STATUS_TEXT_MAX;

          start = g_utf8_find_next_char (start - 1, NULL);
          g_string_erase (self->status_text, 0, start - self->status_text->str);
        }
      append_transcript (self, progress->text);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS_TEXT]);
      break;

    case PD_ENGINE_PROGRESS_TOOL_START:
      self->status_stale = TRUE;
      g_free (self->activity);
      self->activity = g_strdup_printf ("\xe2\x86\x92 %s", progress->text);
      append_transcript (self, "\n");
      append_transcript (self, self->activity);
      append_transcript (self, "\n");
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVITY]);
      break;

    case PD_ENGINE_PROGRESS_RETRY:
    case PD_ENGINE_PROGRESS_DISCARDED:
      /* That answer is asked again: its text goes from the run bar, and the
       * activity line says why (a retry: when). */
      self->status_stale = TRUE;
      G_GNUC_FALLTHROUGH;
    case PD_ENGINE_PROGRESS_TOOL_END:
    case PD_ENGINE_PROGRESS_NOTICE:
      g_free (self->activity);
      self->activity = g_strdup (progress->text);
      append_transcript (self, progress->text);
      append_transcript (self, "\n");
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVITY]);
      break;

    case PD_ENGINE_PROGRESS_SESSION:
      pd_run_controller_set_session_id (self, progress->text);
      g_signal_emit (self, signals[SESSION_STARTED], 0, progress->text);
      break;

    case PD_ENGINE_PROGRESS_REASONING:
    default:
      break;
    }

  return G_SOURCE_REMOVE;
}

/* PdEngineProgressFunc: on the engine's threads. */
static void
progress_on_worker (PdEngineProgress  kind,
                    const char       *text,
                    gpointer          user_data)
{
  Channel *channel = user_data;
  Progress *progress = g_new0 (Progress, 1);

  progress->channel = channel_ref (channel);
  progress->kind = kind;
  progress->text = g_strdup (text ? text : "");
  g_main_context_invoke_full (channel->context, G_PRIORITY_DEFAULT, progress_on_main,
                              progress, (GDestroyNotify) progress_free);
}

/* --- building an engine (worker thread) ----------------------------------- */

/* The engine comes from the core builder like every other front end's:
 * the configuration (with the project file of the session's folder, not of
 * wherever the app started) sets the limits, plan mode and tool rules; the
 * profile picks the provider; the window only answers the questions. */
static PdEngine *
build_engine (const PdRunSettings  *settings,
              const char           *db_path,
              Channel              *channel,
              gboolean              fallback_provider,
              gboolean              report_warnings,
              GError              **error)
{
  PdConfigLoadOptions config_options = PD_CONFIG_LOAD_OPTIONS_INIT;
  g_autoptr(PdConfig) config = NULL;
  g_autoptr(PdEngineBuilder) builder = NULL;
  g_autoptr(GError) build_error = NULL;
  g_autofree char *project_config = NULL;
  PdEngine *engine;

  project_config = g_build_filename (settings->working_directory, "plandeck.json", NULL);
  config_options.project_path = project_config;
  config = pd_config_load (&config_options);

  /* What the CLI prints on stderr, the window shows with the run. */
  if (report_warnings)
    for (const char * const *warning = pd_config_get_warnings (config); *warning != NULL; warning++)
      {
        g_autofree char *text = g_strchomp (g_strdup_printf (_("warning: %s\n"), *warning));

        progress_on_worker (PD_ENGINE_PROGRESS_NOTICE, text, channel);
      }

  builder = pd_engine_builder_new (config);
  pd_engine_builder_set_provider_name (builder, settings->provider);
  pd_engine_builder_set_base_url (builder, settings->base_url);
  pd_engine_builder_set_model (builder, settings->model);
  pd_engine_builder_set_api_key (builder, settings->api_key);
  /* The profile's key variable never reaches a command the model runs. */
  pd_engine_builder_set_api_key_env (builder, settings->api_key_env);
  pd_engine_builder_set_replay_path (builder, settings->replay_path);
  pd_engine_builder_set_working_directory (builder, settings->working_directory);
  pd_engine_builder_set_planning (builder, settings->planning);
  pd_engine_builder_set_approval (builder, settings->policy, approve_on_worker,
                                  channel_ref (channel), (GDestroyNotify) channel_unref);
  pd_engine_builder_set_review_func (builder, review_on_worker,
                                     channel_ref (channel), (GDestroyNotify) channel_unref);
  pd_engine_builder_set_database_path (builder, db_path);

  engine = pd_engine_builder_build (builder, &build_error);
  if (engine == NULL && fallback_provider && build_error->domain == PD_PROVIDER_ERROR)
    {
      /* Plan mode needs an engine on the session, not a model: any provider does. */
      g_autoptr(PdProvider) fallback = pd_provider_new_for_name ("openai", NULL, NULL, NULL, error);

      if (fallback == NULL)
        return NULL;
      pd_engine_builder_set_provider (builder, fallback);
      g_clear_error (&build_error);
      engine = pd_engine_builder_build (builder, &build_error);
    }
  if (engine == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&build_error));
      return NULL;
    }

  pd_engine_set_progress_func (engine, progress_on_worker, channel_ref (channel),
                               (GDestroyNotify) channel_unref);

  return engine;
}

typedef struct
{
  PdRunSettings *settings;
  char          *db_path;
  Channel       *channel;
  PdEngine      *engine;       /* (nullable) reused when set */
  char          *session_id;
  char          *message;
  gboolean       active;
  gboolean       fallback_provider;
} Job;

static void
job_free (Job *job)
{
  pd_run_settings_free (job->settings);
  g_free (job->db_path);
  channel_unref (job->channel);
  g_clear_object (&job->engine);
  g_free (job->session_id);
  g_free (job->message);
  g_free (job);
}

static Job *
pd_run_controller_new_job (PdRunController     *self,
                           const PdRunSettings *settings)
{
  Job *job = g_new0 (Job, 1);

  if (settings != NULL)
    {
      job->settings = pd_run_settings_copy (settings);
    }
  else
    {
      g_autoptr(GSettings) gsettings = g_settings_new (APP_ID);

      job->settings = pd_run_settings_new_from_gsettings (gsettings, NULL);
    }

  if (job->settings->api_key == NULL && job->settings->api_key_env != NULL)
    job->settings->api_key = nonempty (g_getenv (job->settings->api_key_env));

  job->db_path = self->source ? g_strdup (pd_local_source_get_path (self->source)) : NULL;
  job->channel = channel_ref (self->channel);
  if (settings == NULL && self->engine != NULL)
    job->engine = g_object_ref (self->engine);

  return job;
}

static PdEngine *
job_ensure_engine (Job     *job,
                   GError **error)
{
  if (job->engine == NULL)
    job->engine = build_engine (job->settings, job->db_path, job->channel,
                                job->fallback_provider, !job->fallback_provider, error);
  return job->engine;
}

static void
prepare_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;

  if (job_ensure_engine (job, &error) == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_object_ref (job->engine), g_object_unref);
}

/* --- running -------------------------------------------------------------- */

static void
pd_run_controller_set_running (PdRunController *self,
                               gboolean         running)
{
  if (self->running == running)
    return;

  self->running = running;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

static void
pd_run_controller_finish (PdRunController *self,
                          PdRunStatus      status,
                          const char      *message)
{
  pd_run_controller_dismiss_questions (self);
  g_clear_object (&self->cancellable);
  pd_run_controller_set_running (self, FALSE);
  g_signal_emit (self, signals[FINISHED], 0, (int) status, message);
}

static void
on_run_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(PdRunController) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRunResult) run = pd_engine_run_finish (PD_ENGINE (object), result, &error);

  if (run == NULL)
    {
      pd_run_controller_finish (self, PD_RUN_FAILED, error->message);
      return;
    }

  if (run->session_id != NULL)
    pd_run_controller_set_session_id (self, run->session_id);

  switch (run->status)
    {
    case PD_RUN_COMPLETED:
      pd_run_controller_finish (self, run->status, NULL);
      break;
    case PD_RUN_CANCELLED:
      pd_run_controller_finish (self, run->status, _("The run was stopped"));
      break;
    case PD_RUN_BUDGET_EXCEEDED:
      pd_run_controller_finish (self, run->status, _("The run stopped: its budget ran out"));
      break;
    case PD_RUN_INCOMPLETE:
      pd_run_controller_finish (self, run->status,
                                _("The answer was cut off at the model's output limit: it is incomplete"));
      break;
    case PD_RUN_REFUSED:
      {
        /* The explanation is the server's (or the model's) text: shown plain. */
        g_autofree char *message = g_strdup_printf (_("Refused — %s. Continue the session with a new message."),
                                                    run->error_message ? run->error_message : "");
        pd_run_controller_finish (self, run->status, message);
      }
      break;
    case PD_RUN_FAILED:
    default:
      pd_run_controller_finish (self, run->status,
                                run->error_message ? run->error_message : _("The run failed"));
      break;
    }
}

static void
on_prepared (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  PdRunController *self = PD_RUN_CONTROLLER (object);
  Job *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autoptr(PdEngine) engine = g_task_propagate_pointer (G_TASK (result), &error);

  if (engine == NULL)
    {
      pd_run_controller_finish (self, PD_RUN_FAILED, error->message);
      return;
    }

  pd_run_controller_set_engine (self, engine);

  if (g_cancellable_is_cancelled (self->cancellable))
    {
      pd_run_controller_finish (self, PD_RUN_CANCELLED, _("The run was stopped"));
      return;
    }

  pd_engine_run_async (engine, job->session_id, job->message, self->cancellable,
                       on_run_done, g_object_ref (self));
}

/* --- remote runs (main thread, asynchronous) ------------------------------ */

static void pd_run_controller_poll_remote_later (PdRunController *self);

static void
pd_run_controller_set_activity (PdRunController *self,
                                const char      *activity)
{
  if (g_strcmp0 (self->activity, activity) == 0)
    return;
  g_free (self->activity);
  self->activity = g_strdup (activity);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVITY]);
}

static void
pd_run_controller_finish_remote (PdRunController   *self,
                                 const PdRemoteRun *run)
{
  g_clear_handle_id (&self->remote_poll, g_source_remove);
  if (run->result != NULL)
    {
      /* The server's answer (model text): plain text in the run bar. */
      g_string_assign (self->status_text, run->result);
      append_transcript (self, run->result);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS_TEXT]);
    }

  if (g_strcmp0 (run->status, "completed") == 0)
    pd_run_controller_finish (self, PD_RUN_COMPLETED, NULL);
  else if (g_strcmp0 (run->status, "cancelled") == 0)
    pd_run_controller_finish (self, PD_RUN_CANCELLED, _("The run was stopped"));
  else
    pd_run_controller_finish (self, PD_RUN_FAILED, run->error ? run->error : _("The run failed"));
}

/* The question on screen is for an approval the run no longer waits on
 * (answered elsewhere, timed out, the run cancelled): it goes. */
static void
pd_run_controller_close_stale_remote_questions (PdRunController   *self,
                                                const PdRemoteRun *run)
{
  for (guint i = self->questions->len; i > 0; i--)
    {
      Question *question = g_ptr_array_index (self->questions, i - 1);

      if (question->remote_run != NULL && g_strcmp0 (question->remote_run->approval_id, run->approval_id) != 0)
        {
          question_answer (question, FALSE, NULL);
          pd_run_controller_close_question (self, question);
        }
    }
}

static void
pd_run_controller_ask_remote (PdRunController   *self,
                              const PdRemoteRun *run)
{
  g_autofree char *waiting = NULL;
  Question *question;

  g_free (self->remote_asked);
  self->remote_asked = g_strdup (run->approval_id);

  if (g_hash_table_contains (self->always, run->approval_tool))
    {
      pd_run_controller_answer_remote (self, run, TRUE);
      return;
    }

  /* Translators: %s is the name of a tool, such as shell */
  waiting = g_strdup_printf (_("Waiting for approval: %s"), run->approval_tool);
  pd_run_controller_set_activity (self, waiting);

  question = question_new (QUESTION_APPROVAL, self->channel, run->approval_tool, run->approval_command);
  question->remote_run = pd_remote_run_copy (run);
  g_ptr_array_add (self->questions, question);
  pd_run_controller_ask_approval (self, question);
}

static void
on_remote_run (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(PdRunController) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRemoteRun) run = pd_remote_source_get_run_finish (PD_REMOTE_SOURCE (object), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || !self->running)
    return;

  if (run == NULL)
    {
      if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED))
        {
          g_autoptr(PdRemoteRun) lost = pd_remote_run_copy (self->remote_run);

          g_free (lost->status);
          lost->status = g_strdup ("failed");
          g_free (lost->error);
          lost->error = g_strdup (error->message);
          pd_run_controller_finish_remote (self, lost);
          return;
        }
      /* Offline for a moment, or rate limited: the run goes on there; say
       * so and ask again. */
      pd_run_controller_set_activity (self, error->message);
      pd_run_controller_poll_remote_later (self);
      return;
    }

  pd_remote_run_free (self->remote_run);
  self->remote_run = pd_remote_run_copy (run);
  if (run->session_id != NULL && g_strcmp0 (run->session_id, self->session_id) != 0)
    {
      pd_run_controller_set_session_id (self, run->session_id);
      g_signal_emit (self, signals[SESSION_STARTED], 0, run->session_id);
    }

  pd_run_controller_close_stale_remote_questions (self, run);
  if (pd_remote_run_is_over (run))
    {
      pd_run_controller_finish_remote (self, run);
      return;
    }

  if (run->approval_id != NULL && g_strcmp0 (run->approval_id, self->remote_asked) != 0)
    pd_run_controller_ask_remote (self, run);
  else if (run->approval_id == NULL)
    pd_run_controller_set_activity (self, _("Running on the endpoint"));

  pd_run_controller_poll_remote_later (self);
}

static gboolean
poll_remote (gpointer data)
{
  PdRunController *self = data;

  self->remote_poll = 0;
  pd_remote_source_get_run_async (self->remote, self->remote_run->run_id, self->remote_calls,
                                  on_remote_run, g_object_ref (self));
  return G_SOURCE_REMOVE;
}

static void
pd_run_controller_poll_remote_later (PdRunController *self)
{
  if (self->remote_poll == 0)
    self->remote_poll = g_timeout_add (REMOTE_POLL_MS, poll_remote, self);
}

static void
on_remote_answered (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(PdRunController) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!pd_remote_source_answer_approval_finish (PD_REMOTE_SOURCE (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    /* Not taken (it timed out there, or the endpoint takes no answers):
     * the run bar says why, the run goes on. */
    pd_run_controller_set_activity (self, error->message);
}

static void
pd_run_controller_answer_remote (PdRunController   *self,
                                 const PdRemoteRun *run,
                                 gboolean           allow)
{
  pd_run_controller_set_activity (self, allow ? _("Approved") : _("Denied"));
  pd_remote_source_answer_approval_async (self->remote, run, allow, self->remote_calls,
                                          on_remote_answered, g_object_ref (self));
}

static void
on_remote_cancelled (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(PdRunController) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!pd_remote_source_cancel_finish (PD_REMOTE_SOURCE (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    pd_run_controller_set_activity (self, error->message);
}

/* Stop: the server cancels the run (and its question); the run is
 * followed until it says it ended. */
static void
pd_run_controller_stop_remote (PdRunController *self)
{
  const char *session_id = self->remote_run ? self->remote_run->session_id : NULL;

  if (self->remote_run == NULL)
    {
      self->remote_stop = TRUE;
      return;
    }
  if (session_id == NULL)
    return;
  pd_run_controller_set_activity (self, _("Stopping…"));
  pd_remote_source_cancel_async (self->remote, session_id, self->remote_calls,
                                 on_remote_cancelled, g_object_ref (self));
}

static void
on_remote_started (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(PdRunController) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRemoteRun) run = pd_remote_source_start_run_finish (PD_REMOTE_SOURCE (object), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (run == NULL)
    {
      pd_run_controller_finish (self, PD_RUN_FAILED, error->message);
      return;
    }

  self->remote_run = pd_remote_run_copy (run);
  if (run->session_id != NULL && g_strcmp0 (run->session_id, self->session_id) != 0)
    {
      pd_run_controller_set_session_id (self, run->session_id);
      g_signal_emit (self, signals[SESSION_STARTED], 0, run->session_id);
    }
  pd_run_controller_set_activity (self, _("Running on the endpoint"));
  if (self->remote_stop)
    pd_run_controller_stop_remote (self);
  pd_run_controller_poll_remote_later (self);
}

static void
pd_run_controller_begin_remote (PdRunController *self,
                                const char      *session_id,
                                const char      *message)
{
  g_clear_pointer (&self->remote_run, pd_remote_run_free);
  g_clear_pointer (&self->remote_asked, g_free);
  self->remote_stop = FALSE;
  pd_run_controller_set_activity (self, _("Starting on the endpoint…"));
  pd_remote_source_start_run_async (self->remote, session_id, message, self->remote_calls,
                                    on_remote_started, g_object_ref (self));
}

static void
on_remote_found (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(PdRunController) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRemoteRun) run = pd_remote_source_find_run_finish (PD_REMOTE_SOURCE (object), result, &error);

  /* Nothing going on there, the endpoint cannot say, or a run of our own
   * started meanwhile: nothing to follow. */
  if (run == NULL || self->running)
    return;

  g_clear_pointer (&self->remote_run, pd_remote_run_free);
  g_clear_pointer (&self->remote_asked, g_free);
  self->remote_stop = FALSE;
  g_string_truncate (self->status_text, 0);
  g_string_truncate (self->transcript, 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS_TEXT]);
  self->cancellable = g_cancellable_new ();
  self->remote_run = pd_remote_run_copy (run);
  pd_run_controller_set_session_id (self, run->session_id);
  pd_run_controller_set_activity (self, _("Running on the endpoint"));
  pd_run_controller_set_running (self, TRUE);
  pd_run_controller_poll_remote_later (self);
}

/**
 * pd_run_controller_follow:
 * @session_id: a session of the controller's endpoint
 *
 * Reattaches to the run of @session_id going on at the endpoint (started
 * from a window since closed, or by another client): it is shown as this
 * window's run, its questions come to the dialog, Stop cancels it.  Does
 * nothing for a local database, while a run is going on, or when the
 * session has no run.
 */
void
pd_run_controller_follow (PdRunController *self,
                          const char      *session_id)
{
  g_return_if_fail (PD_IS_RUN_CONTROLLER (self));

  if (self->remote == NULL || self->running || session_id == NULL)
    return;
  pd_remote_source_find_run_async (self->remote, session_id, self->remote_calls,
                                   on_remote_found, g_object_ref (self));
}

static gboolean
pd_run_controller_begin (PdRunController      *self,
                         const PdRunSettings  *settings,
                         const char           *session_id,
                         const char           *message,
                         GError              **error)
{
  g_autoptr(GTask) task = NULL;
  Job *job;

  if (self->running)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                           _("A run is going on in this window; stop it first"));
      return FALSE;
    }

  pd_run_controller_set_session_id (self, session_id);
  g_string_truncate (self->status_text, 0);
  self->status_stale = FALSE;
  g_string_truncate (self->transcript, 0);
  g_clear_pointer (&self->activity, g_free);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS_TEXT]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVITY]);

  self->cancellable = g_cancellable_new ();
  pd_run_controller_set_running (self, TRUE);

  if (self->remote != NULL)
    {
      pd_run_controller_begin_remote (self, session_id, message);
      return TRUE;
    }

  job = pd_run_controller_new_job (self, settings);
  job->session_id = g_strdup (session_id);
  job->message = g_strdup (message);

  task = g_task_new (self, self->cancellable, on_prepared, NULL);
  g_task_set_source_tag (task, pd_run_controller_begin);
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, prepare_thread);

  return TRUE;
}

/**
 * pd_run_controller_start:
 * @settings: the provider, folder and policies of the new session
 * @message: the task; "/plan TASK" starts in plan mode
 *
 * Starts a new session.  ::session-started tells its id once the engine
 * made it; ::finished tells how the run ended.
 *
 * Returns: %FALSE when a run is going on already
 */
gboolean
pd_run_controller_start (PdRunController      *self,
                         const PdRunSettings  *settings,
                         const char           *message,
                         GError              **error)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), FALSE);
  g_return_val_if_fail (settings != NULL || self->remote != NULL, FALSE);
  g_return_val_if_fail (message != NULL, FALSE);

  return pd_run_controller_begin (self, settings, NULL, message, error);
}

/**
 * pd_run_controller_continue:
 * @message: the new message; "/plan", "/plan off" and "/plan TEXT" too
 *
 * Resumes a stored session with the engine of the last run (or one made
 * from the default provider profile).
 */
gboolean
pd_run_controller_continue (PdRunController  *self,
                            const char       *session_id,
                            const char       *message,
                            GError          **error)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), FALSE);
  g_return_val_if_fail (session_id != NULL, FALSE);

  return pd_run_controller_begin (self, NULL, session_id, message, error);
}

/**
 * pd_run_controller_stop:
 *
 * Cancels the run; it ends after the current step, and open questions are
 * answered no.
 */
void
pd_run_controller_stop (PdRunController *self)
{
  g_return_if_fail (PD_IS_RUN_CONTROLLER (self));

  if (self->remote != NULL && self->running)
    pd_run_controller_stop_remote (self);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  pd_run_controller_dismiss_questions (self);
}

/* --- plan mode ------------------------------------------------------------ */

static void
plan_mode_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;

  if (job_ensure_engine (job, &error) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  if (g_task_get_source_tag (task) == pd_run_controller_get_plan_mode_async)
    {
      gboolean pending = FALSE;
      gboolean active = pd_engine_get_plan_mode (job->engine, job->session_id, &pending);

      job->active = pending;
      g_task_return_boolean (task, active);
    }
  else
    {
      PdPlanModeSetResult result = pd_engine_set_plan_mode (job->engine, job->session_id,
                                                            job->active, &error);

      if (error != NULL)
        g_task_return_error (task, error);
      else
        g_task_return_int (task, result);
    }
}

static void
pd_run_controller_plan_mode_job (PdRunController     *self,
                                 gpointer             tag,
                                 const char          *session_id,
                                 gboolean             active,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  Job *job;

  if (self->remote != NULL)
    {
      /* Plan mode is the engine's, and the engine is the server's. */
      g_task_set_source_tag (task, tag);
      g_task_set_task_data (task, g_new0 (Job, 1), g_free);
      g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED,
                               _("Plan mode of a session on an endpoint is set there"));
      return;
    }

  job = pd_run_controller_new_job (self, NULL);
  job->session_id = g_strdup (session_id);
  job->active = active;
  job->fallback_provider = TRUE;

  g_task_set_source_tag (task, tag);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, plan_mode_thread);
}

/* Adopts an engine a plan-mode job had to build. */
static void
adopt_engine (PdRunController *self,
              GAsyncResult    *result)
{
  Job *job = g_task_get_task_data (G_TASK (result));

  if (self->engine == NULL && job != NULL && job->engine != NULL)
    pd_run_controller_set_engine (self, job->engine);
}

void
pd_run_controller_get_plan_mode_async (PdRunController     *self,
                                       const char          *session_id,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_return_if_fail (PD_IS_RUN_CONTROLLER (self));
  g_return_if_fail (session_id != NULL);

  pd_run_controller_plan_mode_job (self, pd_run_controller_get_plan_mode_async, session_id,
                                   FALSE, cancellable, callback, user_data);
}

/**
 * pd_run_controller_get_plan_mode_finish:
 * @pending: (out) (optional): a selection waits for the next step boundary
 *
 * Returns: whether plan mode is in force for the session
 */
gboolean
pd_run_controller_get_plan_mode_finish (PdRunController  *self,
                                        GAsyncResult     *result,
                                        gboolean         *pending,
                                        GError          **error)
{
  Job *job;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  adopt_engine (self, result);
  job = g_task_get_task_data (G_TASK (result));
  if (pending != NULL)
    *pending = job->active;

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
pd_run_controller_set_plan_mode_async (PdRunController     *self,
                                       const char          *session_id,
                                       gboolean             active,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_return_if_fail (PD_IS_RUN_CONTROLLER (self));
  g_return_if_fail (session_id != NULL);

  pd_run_controller_plan_mode_job (self, pd_run_controller_set_plan_mode_async, session_id,
                                   active, cancellable, callback, user_data);
}

/**
 * pd_run_controller_set_plan_mode_finish:
 *
 * Returns: committed (at once), queued (at the next step boundary of the
 *   running turn), cancelled (a queued change taken back) or noop
 */
PdPlanModeSetResult
pd_run_controller_set_plan_mode_finish (PdRunController  *self,
                                        GAsyncResult     *result,
                                        GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  gssize value;

  g_return_val_if_fail (g_task_is_valid (result, self), PD_PLAN_MODE_NOOP);

  adopt_engine (self, result);
  value = g_task_propagate_int (G_TASK (result), &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return PD_PLAN_MODE_NOOP;
    }

  return (PdPlanModeSetResult) value;
}

/* --- GObject -------------------------------------------------------------- */

static void
pd_run_controller_dispose (GObject *object)
{
  PdRunController *self = PD_RUN_CONTROLLER (object);

  /* A remote run goes on on its server: only our following of it ends. */
  g_cancellable_cancel (self->remote_calls);
  g_clear_handle_id (&self->remote_poll, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  pd_run_controller_dismiss_questions (self);
  g_clear_weak_pointer (&self->parent);
  pd_run_controller_set_engine (self, NULL);

  G_OBJECT_CLASS (pd_run_controller_parent_class)->dispose (object);
}

static void
pd_run_controller_finalize (GObject *object)
{
  PdRunController *self = PD_RUN_CONTROLLER (object);

  g_clear_object (&self->source);
  g_clear_object (&self->remote);
  g_clear_object (&self->remote_calls);
  g_clear_pointer (&self->remote_run, pd_remote_run_free);
  g_clear_pointer (&self->remote_asked, g_free);
  g_clear_object (&self->engine);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->channel, channel_unref);
  g_clear_pointer (&self->session_id, g_free);
  g_clear_pointer (&self->activity, g_free);
  g_string_free (self->status_text, TRUE);
  g_string_free (self->transcript, TRUE);
  g_hash_table_unref (self->always);
  g_ptr_array_unref (self->questions);

  G_OBJECT_CLASS (pd_run_controller_parent_class)->finalize (object);
}

static void
pd_run_controller_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  PdRunController *self = PD_RUN_CONTROLLER (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;

    case PROP_SESSION_ID:
      g_value_set_string (value, self->session_id);
      break;

    case PROP_STATUS_TEXT:
      g_value_set_string (value, self->status_text->str);
      break;

    case PROP_ACTIVITY:
      g_value_set_string (value, self->activity);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_run_controller_class_init (PdRunControllerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_run_controller_dispose;
  object_class->finalize = pd_run_controller_finalize;
  object_class->get_property = pd_run_controller_get_property;

  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SESSION_ID] =
    g_param_spec_string ("session-id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The assistant's text of the current turn, streaming (plain text). */
  properties[PROP_STATUS_TEXT] =
    g_param_spec_string ("status-text", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The latest tool call or its outcome (plain text). */
  properties[PROP_ACTIVITY] =
    g_param_spec_string ("activity", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PdRunController::session-started:
   * @session_id: the session of the run
   */
  signals[SESSION_STARTED] =
    g_signal_new ("session-started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * PdRunController::finished:
   * @status: a #PdRunStatus
   * @message: (nullable): why it did not complete, for a person
   */
  signals[FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
}

static void
pd_run_controller_init (PdRunController *self)
{
  self->channel = channel_new (self);
  self->status_text = g_string_new (NULL);
  self->transcript = g_string_new (NULL);
  self->always = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->questions = g_ptr_array_new_with_free_func ((GDestroyNotify) question_unref);
  self->remote_calls = g_cancellable_new ();
}

/**
 * pd_run_controller_new:
 * @source: the window's database
 * @parent: (nullable): the window questions are asked over
 *
 * Returns: (transfer full): a controller with no engine yet
 */
PdRunController *
pd_run_controller_new (PdLocalSource *source,
                       GtkWindow     *parent)
{
  PdRunController *self;

  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (source), NULL);

  self = g_object_new (PD_TYPE_RUN_CONTROLLER, NULL);
  self->source = g_object_ref (source);
  g_set_weak_pointer (&self->parent, parent);

  return self;
}

/**
 * pd_run_controller_new_for_remote:
 * @source: the window's endpoint
 * @parent: (nullable): the window questions are asked over
 *
 * Runs on the endpoint: pd_run_controller_start() (its @settings are the
 * server's to choose, and ignored) and pd_run_controller_continue() start
 * them there, questions come to the same dialog, stop cancels there.
 *
 * Returns: (transfer full): a controller for @source's runs
 */
PdRunController *
pd_run_controller_new_for_remote (PdRemoteSource *source,
                                  GtkWindow      *parent)
{
  PdRunController *self;

  g_return_val_if_fail (PD_IS_REMOTE_SOURCE (source), NULL);

  self = g_object_new (PD_TYPE_RUN_CONTROLLER, NULL);
  self->remote = g_object_ref (source);
  g_set_weak_pointer (&self->parent, parent);

  return self;
}

gboolean
pd_run_controller_is_remote (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), FALSE);
  return self->remote != NULL;
}

gboolean
pd_run_controller_get_running (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), FALSE);
  return self->running;
}

const char *
pd_run_controller_get_session_id (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), NULL);
  return self->session_id;
}

const char *
pd_run_controller_get_status_text (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), NULL);
  return self->status_text->str;
}

const char *
pd_run_controller_get_activity (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), NULL);
  return self->activity;
}

/* Everything the current run said and did, plain text (tests, copy). */
const char *
pd_run_controller_get_transcript (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), NULL);
  return self->transcript->str;
}
