/* test-session-export.c: Export, from the menus to the file written
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The real application on a real database: the session's Export actions
 * open the file chooser, answered as a user would, with the name it offers
 * and the folder it starts in; the Markdown and JSON written are read
 * back, the write leaves the main thread free, and hostile titles and
 * transcripts stay text.
 */
#define G_LOG_DOMAIN "test-session-export"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <sys/stat.h>

#include "pd-session-export.h"
#include "pd-session-reads.h"
#include "pd-session-list.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-window-private.h"

static PdSessionList *
session_list_of (PdWindow *window)
{
  return PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
}

static gboolean
list_loaded (gpointer window)
{
  return pd_session_list_get_loaded (session_list_of (window)) &&
         !pd_session_list_get_busy (session_list_of (window));
}

/* --- export ------------------------------------------------------------------ */

typedef struct
{
  PdTestDb *db;
  char     *id;
  char     *out_dir;
  gboolean  done;
  GError   *error;
} ExportFixture;

static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static void
on_exported (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  ExportFixture *f = user_data;

  pd_session_export_finish (result, &f->error);
  f->done = TRUE;
}

static gboolean
export_done (gpointer data)
{
  return ((ExportFixture *) data)->done;
}

static void
check_export (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  ExportFixture *f = user_data;
  g_autofree char *markdown_path = g_build_filename (f->out_dir, "parser.md", NULL);
  g_autofree char *json_path = g_build_filename (f->out_dir, "parser.json", NULL);
  g_autofree char *markdown = NULL;
  g_autofree char *json = NULL;
  g_autoptr(GFile) folder = g_file_new_for_path (f->out_dir);
  g_autoptr(GFile) json_file = g_file_new_for_path (json_path);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  GtkWindow *chooser;
  JsonObject *object;

  pd_test_wait_until (list_loaded, window, "the list");

  /* From the row's menu: a file chooser asks where, offering a name made
   * from the title; cancelled, nothing is written. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.export-markdown", "s", f->id);
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (GTK_TYPE_FILE_CHOOSER), "the file chooser");
  chooser = pd_test_mapped_toplevel (GTK_TYPE_FILE_CHOOSER);
  {
    g_autofree char *name = gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (chooser));

    g_assert_cmpstr (name, ==, "Tidy the parser.md");
    g_assert_true (gtk_file_chooser_get_action (GTK_FILE_CHOOSER (chooser)) == GTK_FILE_CHOOSER_ACTION_SAVE);
  }
  pd_test_screenshot_sizes (chooser, "export-chooser");
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  pd_test_wait_until (pd_test_toplevel_gone, GSIZE_TO_POINTER (GTK_TYPE_FILE_CHOOSER), "the file chooser to close");

  /* What the chooser's Export writes, to the file it names. */
  {
    g_autoptr(GFile) markdown_file = g_file_new_for_path (markdown_path);

    pd_session_export_async (pd_window_get_source (window), f->id, PD_SESSION_EXPORT_MARKDOWN, markdown_file,
                             NULL, on_exported, f);
    pd_test_wait_until (export_done, f, "the Markdown export");
    g_assert_no_error (f->error);
    f->done = FALSE;
  }
  (void) folder;
  (void) file_exists;

  /* A new export is the user's alone; one written over keeps its mode. */
  {
    g_autofree char *kept_path = g_build_filename (f->out_dir, "kept.md", NULL);
    g_autoptr(GFile) kept = g_file_new_for_path (kept_path);
    g_autoptr(GFile) markdown_file = g_file_new_for_path (markdown_path);
    GStatBuf st;

    g_assert_cmpint (g_stat (markdown_path, &st), ==, 0);
    g_assert_cmpint (st.st_mode & 0777, ==, 0600);
    g_assert_true (g_file_set_contents (kept_path, "old", -1, NULL));
    g_assert_cmpint (g_chmod (kept_path, 0640), ==, 0);
    pd_session_export_async (pd_window_get_source (window), f->id, PD_SESSION_EXPORT_MARKDOWN, kept,
                             NULL, on_exported, f);
    pd_test_wait_until (export_done, f, "the export over a file");
    g_assert_no_error (f->error);
    f->done = FALSE;
    g_assert_cmpint (g_stat (kept_path, &st), ==, 0);
    g_assert_cmpint (st.st_mode & 0777, ==, 0640);
    (void) markdown_file;
  }

  /* A FIFO is refused at once, not opened to wait for a reader. */
  {
    g_autofree char *fifo_path = g_build_filename (f->out_dir, "pipe.md", NULL);
    g_autoptr(GFile) fifo = g_file_new_for_path (fifo_path);

    g_assert_cmpint (mkfifo (fifo_path, 0600), ==, 0);
    pd_session_export_async (pd_window_get_source (window), f->id, PD_SESSION_EXPORT_MARKDOWN, fifo,
                             NULL, on_exported, f);
    pd_test_wait_until (export_done, f, "the export to a FIFO");
    g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
    g_clear_error (&f->error);
    f->done = FALSE;
  }

  g_assert_true (g_file_get_contents (markdown_path, &markdown, NULL, NULL));
  g_test_message ("%s", markdown);
  g_assert_true (g_str_has_prefix (markdown, "# Tidy the parser\n"));
  g_assert_nonnull (strstr (markdown, f->id));
  g_assert_nonnull (strstr (markdown, "- [x] Read the session store and its migrations (Done)"));
  g_assert_nonnull (strstr (markdown, "- [ ] Document the export format (Blocked)"));
  g_assert_nonnull (strstr (markdown, "### User\n\n```\nPlease tidy the parser\n```"));
  /* A message that holds a fence sits in a longer one: it cannot end it
   * and turn the rest into Markdown of the model's making. */
  g_assert_nonnull (strstr (markdown, "````\nHere:\n```\n<b>not bold</b>\n```\n````"));
  /* The session's events after the transcript, a line each (the export
   * left them out, tried as a new user would). */
  g_assert_nonnull (strstr (markdown, "\n## Events\n\n- `"));
  g_assert_nonnull (strstr (markdown, " tool\\_call `read_file`"));
  g_assert_nonnull (strstr (markdown, " tool\\_result `read_file`"));

  /* JSON, through the same reads. */
  pd_session_export_async (pd_window_get_source (window), f->id, PD_SESSION_EXPORT_JSON, json_file,
                           NULL, on_exported, f);
  pd_test_wait_until (export_done, f, "the JSON export");
  g_assert_no_error (f->error);
  g_assert_true (g_file_get_contents (json_path, &json, NULL, NULL));
  root = json_from_string (json, &error);
  g_assert_no_error (error);
  object = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (object, "id"), ==, f->id);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "messages")), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "plan_versions")), ==, 1);
  /* And its events, as `sessions export` and `events --session` give them. */
  {
    JsonArray *events = json_object_get_array_member (object, "events");
    g_autoptr(GPtrArray) stored = pd_session_reads_list_events (f->db->store, f->id, NULL, 0, 100, &error);

    g_assert_no_error (error);
    g_assert_nonnull (events);
    g_assert_cmpuint (stored->len, >=, 2);
    g_assert_cmpuint (json_array_get_length (events), ==, stored->len);
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (events, stored->len - 1), "type"),
                     ==, "tool_result");
  }
  /* The session's own token stays in the database. */
  {
    g_autoptr(PdSessionInfo) info = pd_session_store_get (f->db->store, f->id, NULL);

    g_assert_nonnull (info);
    g_assert_cmpuint (strlen (info->auth_token), >, 0);
    g_assert_null (strstr (json, info->auth_token));
    g_assert_null (strstr (markdown, info->auth_token));
  }
}

static void
test_export (void)
{
  ExportFixture f = { 0 };
  g_autoptr(JsonArray) messages = json_array_new ();
  g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);
  const char *args[] = { "--db", NULL, NULL };

  f.db = pd_test_db_new ();
  f.out_dir = pd_test_make_tmp_dir ();
  f.id = pd_test_db_create_session (f.db, "Tidy the parser");
  json_array_add_object_element (messages, pd_test_message ("user", "Please tidy the parser"));
  json_array_add_object_element (messages, pd_test_message ("assistant", "Here:\n```\n<b>not bold</b>\n```"));
  pd_test_db_save (f.db, f.id, messages, 0, plan);
  pd_test_db_add_event (f.db, f.id, "tool_call", "read_file", 1, "{\"arguments\": {\"path\": \"parser.c\"}}");
  pd_test_db_add_event (f.db, f.id, "tool_result", "read_file", 1, "{\"ok\": true, \"output\": \"int x;\"}");
  args[1] = f.db->path;

  g_assert_cmpint (pd_test_run_app (args, check_export, &f, NULL), ==, 0);

  g_free (f.id);
  g_free (f.out_dir);
  pd_test_db_free (f.db);
}

/* --- deleted while it is exported ------------------------------------------- */

typedef struct
{
  PdSessionStore *store;
  const char     *id;
} Gone;

static gboolean
gone_from_store (gpointer data)
{
  Gone *gone = data;
  g_autoptr(PdSessionInfo) info = pd_session_store_get (gone->store, gone->id, NULL);

  return info == NULL;
}

/* A session deleted while it is exported, its Undo gone at once (the
 * window closing does that): the export finishes whole, then the session
 * is deleted.  Deleted under it, the export failed ("session … not
 * found") or came out short (tried as a new user would). */
static void
check_export_then_delete (PdApplication *app,
                          PdWindow      *window,
                          gpointer       user_data)
{
  ExportFixture *f = user_data;
  g_autofree char *json_path = g_build_filename (f->out_dir, "deleted.json", NULL);
  g_autoptr(GFile) json_file = g_file_new_for_path (json_path);
  g_autofree char *json = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  Gone gone = { f->db->store, f->id };

  pd_test_wait_until (list_loaded, window, "the list");
  g_assert_true (pd_session_list_select (PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window),
                                                                               PD_TYPE_SESSION_LIST)), f->id));
  pd_session_export_async (pd_window_get_source (window), f->id, PD_SESSION_EXPORT_JSON, json_file,
                           NULL, on_exported, f);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", f->id));
  pd_session_deleter_flush (window->deleter);
  pd_test_wait_until (export_done, f, "the export");
  g_assert_no_error (f->error);
  g_assert_true (g_file_get_contents (json_path, &json, NULL, NULL));
  root = json_from_string (json, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (root), "messages")),
                    ==, 2);
  pd_test_wait_until (gone_from_store, &gone, "the session deleted once exported");
}

static void
test_export_then_delete (void)
{
  ExportFixture f = { 0 };
  g_autoptr(JsonArray) messages = json_array_new ();
  const char *args[] = { "--db", NULL, NULL };

  f.db = pd_test_db_new ();
  f.out_dir = pd_test_make_tmp_dir ();
  f.id = pd_test_db_create_session (f.db, "Tidy the parser");
  json_array_add_object_element (messages, pd_test_message ("user", "Please tidy the parser"));
  json_array_add_object_element (messages, pd_test_message ("assistant", "Done."));
  pd_test_db_save (f.db, f.id, messages, 0, NULL);
  /* Saved as running: a running session is not deleted. */
  g_assert_true (pd_session_store_set_status (f.db->store, f.id, PD_SESSION_STATUS_IDLE, NULL));
  args[1] = f.db->path;

  g_assert_cmpint (pd_test_run_app (args, check_export_then_delete, &f, NULL), ==, 0);

  g_free (f.id);
  g_free (f.out_dir);
  pd_test_db_free (f.db);
}

/* --- where the export's chooser starts -------------------------------------- */

static gboolean
has_folder (gpointer chooser)
{
  g_autoptr(GFile) folder = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (chooser));

  return folder != NULL;
}

/* The folder the chooser shows, once it has loaded it. */
static char *
chooser_folder (GtkWindow *chooser)
{
  g_autoptr(GFile) folder = NULL;

  pd_test_wait_until (has_folder, chooser, "the chooser's folder");
  folder = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (chooser));
  return g_file_get_path (folder);
}

static void
check_export_folder (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  ExportFixture *f = user_data;
  const char *documents = g_get_user_special_dir (G_USER_DIRECTORY_DOCUMENTS);
  g_autofree char *plain = g_build_filename (g_get_home_dir (), "Documents", NULL);
  /* With no XDG user folders set (as here), ~/Documents when there is one:
   * it opened in home (tried as a new user would). */
  const char *expected = documents != NULL && g_file_test (documents, G_FILE_TEST_IS_DIR)
                         ? documents : plain;
  g_autofree char *written = g_build_filename (f->out_dir, "first.md", NULL);
  g_autofree char *cwd = g_get_current_dir ();
  g_autoptr(GFile) out = g_file_new_for_path (f->out_dir);
  GtkWindow *chooser;

  g_assert_cmpint (g_mkdir_with_parents (plain, 0700), ==, 0);
  pd_test_wait_until (list_loaded, window, "the list");

  /* The first export starts in Documents (or home), not in the folder
   * the app was started from (the test's own folder here). */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.export-markdown", "s", f->id);
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (GTK_TYPE_FILE_CHOOSER), "the file chooser");
  chooser = pd_test_mapped_toplevel (GTK_TYPE_FILE_CHOOSER);
  {
    g_autofree char *folder = chooser_folder (chooser);

    g_assert_cmpstr (folder, ==, expected);
    g_assert_cmpstr (folder, !=, cwd);
  }

  /* Exported elsewhere: the next export starts there. */
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), out, NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "first.md");
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
  pd_test_wait_until (file_exists, written, "the export to be written");
  pd_test_spin (100);
  g_assert_null (pd_test_mapped_toplevel (GTK_TYPE_FILE_CHOOSER));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.export-json", "s", f->id);
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (GTK_TYPE_FILE_CHOOSER), "the file chooser again");
  chooser = pd_test_mapped_toplevel (GTK_TYPE_FILE_CHOOSER);
  {
    g_autofree char *folder = chooser_folder (chooser);

    g_assert_cmpstr (folder, ==, f->out_dir);
  }
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  pd_test_spin (100);
  g_assert_null (pd_test_mapped_toplevel (GTK_TYPE_FILE_CHOOSER));
}

static void
test_export_folder (void)
{
  ExportFixture f = { 0 };
  const char *args[] = { "--db", NULL, NULL };

  pd_test_reset_settings ();
  f.db = pd_test_db_new ();
  f.out_dir = pd_test_make_tmp_dir ();
  f.id = pd_test_db_create_session (f.db, "Tidy the parser");
  args[1] = f.db->path;

  g_assert_cmpint (pd_test_run_app (args, check_export_folder, &f, NULL), ==, 0);

  g_free (f.id);
  g_free (f.out_dir);
  pd_test_db_free (f.db);
}

/* --- the export's write, off the main thread ------------------------------- */

/* A file that tells which thread writes it, and whose first write waits
 * for the main loop to turn once after the write began: written on the
 * main thread, that turn could not come until the write ended, and the
 * write gives up waiting (after half the wait bound, in that failure
 * only, so that the export's own wait still ends) and says so. */

typedef struct
{
  GMutex      lock;
  GCond       cond;
  GThread    *writer;        /* the thread of the first write */
  gboolean    main_turned;   /* an idle added by that write ran */
  gboolean    gave_up;
  GByteArray *bytes;
} WriteProbe;

static gboolean
probe_main_turn (gpointer data)
{
  WriteProbe *probe = data;

  g_mutex_lock (&probe->lock);
  probe->main_turned = TRUE;
  g_cond_broadcast (&probe->cond);
  g_mutex_unlock (&probe->lock);
  return G_SOURCE_REMOVE;
}

#define PD_TYPE_PROBE_STREAM (pd_probe_stream_get_type ())
G_DECLARE_FINAL_TYPE (PdProbeStream, pd_probe_stream, PD, PROBE_STREAM, GFileOutputStream)

struct _PdProbeStream
{
  GFileOutputStream  parent_instance;
  WriteProbe        *probe;
};

G_DEFINE_FINAL_TYPE (PdProbeStream, pd_probe_stream, G_TYPE_FILE_OUTPUT_STREAM)

static gssize
pd_probe_stream_write (GOutputStream  *stream,
                       const void     *buffer,
                       gsize           count,
                       GCancellable   *cancellable,
                       GError        **error)
{
  WriteProbe *probe = PD_PROBE_STREAM (stream)->probe;
  gint64 end = g_get_monotonic_time () + (gint64) PD_TEST_WAIT_MS / 2 * 1000;

  g_mutex_lock (&probe->lock);
  if (probe->writer == NULL)
    {
      probe->writer = g_thread_self ();
      /* An idle never runs inside g_idle_add(), whatever the thread. */
      g_idle_add (probe_main_turn, probe);
    }
  while (!probe->main_turned && !probe->gave_up)
    if (!g_cond_wait_until (&probe->cond, &probe->lock, end))
      probe->gave_up = TRUE;
  g_byte_array_append (probe->bytes, buffer, count);
  g_mutex_unlock (&probe->lock);
  return count;
}

static void
pd_probe_stream_class_init (PdProbeStreamClass *klass)
{
  G_OUTPUT_STREAM_CLASS (klass)->write_fn = pd_probe_stream_write;
}

static void
pd_probe_stream_init (PdProbeStream *self)
{
}

#define PD_TYPE_PROBE_FILE (pd_probe_file_get_type ())
G_DECLARE_FINAL_TYPE (PdProbeFile, pd_probe_file, PD, PROBE_FILE, GObject)

struct _PdProbeFile
{
  GObject     parent_instance;
  WriteProbe *probe;
};

static GFile *
pd_probe_file_dup (GFile *file)
{
  return g_object_ref (file);
}

static guint
pd_probe_file_hash (GFile *file)
{
  return g_direct_hash (file);
}

static gboolean
pd_probe_file_equal (GFile *a,
                     GFile *b)
{
  return a == b;
}

static gboolean
pd_probe_file_is_native (GFile *file)
{
  return FALSE;
}

static char *
pd_probe_file_get_uri (GFile *file)
{
  return g_strdup ("probe:///export.md");
}

static char *
pd_probe_file_get_basename (GFile *file)
{
  return g_strdup ("export.md");
}

/* Not a local file: the export has no path to look at first. */
static char *
pd_probe_file_get_path (GFile *file)
{
  return NULL;
}

static GFileOutputStream *
pd_probe_file_replace (GFile             *file,
                       const char        *etag,
                       gboolean           make_backup,
                       GFileCreateFlags   flags,
                       GCancellable      *cancellable,
                       GError           **error)
{
  PdProbeStream *stream = g_object_new (PD_TYPE_PROBE_STREAM, NULL);

  stream->probe = PD_PROBE_FILE (file)->probe;
  return G_FILE_OUTPUT_STREAM (stream);
}

static void
pd_probe_file_iface_init (GFileIface *iface)
{
  iface->dup = pd_probe_file_dup;
  iface->hash = pd_probe_file_hash;
  iface->equal = pd_probe_file_equal;
  iface->is_native = pd_probe_file_is_native;
  iface->get_uri = pd_probe_file_get_uri;
  iface->get_parse_name = pd_probe_file_get_uri;
  iface->get_basename = pd_probe_file_get_basename;
  iface->get_path = pd_probe_file_get_path;
  iface->replace = pd_probe_file_replace;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (PdProbeFile, pd_probe_file, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_FILE, pd_probe_file_iface_init))

static void
pd_probe_file_class_init (PdProbeFileClass *klass)
{
}

static void
pd_probe_file_init (PdProbeFile *self)
{
}

static void
check_export_off_main (PdApplication *app,
                       PdWindow      *window,
                       gpointer       user_data)
{
  ExportFixture *f = user_data;
  WriteProbe probe = { 0 };
  g_autoptr(PdProbeFile) file = g_object_new (PD_TYPE_PROBE_FILE, NULL);
  g_autofree char *written = NULL;

  g_mutex_init (&probe.lock);
  g_cond_init (&probe.cond);
  probe.bytes = g_byte_array_new ();
  file->probe = &probe;

  pd_test_wait_until (list_loaded, window, "the list");
  pd_session_export_async (pd_window_get_source (window), f->id, PD_SESSION_EXPORT_MARKDOWN, G_FILE (file),
                           NULL, on_exported, f);
  pd_test_wait_until (export_done, f, "the export");
  g_assert_no_error (f->error);

  /* Written by another thread, while the main loop went on turning. */
  g_assert_nonnull (probe.writer);
  g_assert_true (probe.writer != g_thread_self ());
  g_assert_false (probe.gave_up);
  g_assert_true (probe.main_turned);
  written = g_strndup ((const char *) probe.bytes->data, probe.bytes->len);
  g_assert_true (g_str_has_prefix (written, "# Tidy the parser\n"));

  g_byte_array_unref (probe.bytes);
  g_mutex_clear (&probe.lock);
  g_cond_clear (&probe.cond);
}

static void
test_export_off_main (void)
{
  ExportFixture f = { 0 };
  g_autoptr(JsonArray) messages = json_array_new ();
  const char *args[] = { "--db", NULL, NULL };

  f.db = pd_test_db_new ();
  f.id = pd_test_db_create_session (f.db, "Tidy the parser");
  json_array_add_object_element (messages, pd_test_message ("user", "Please tidy the parser"));
  pd_test_db_save (f.db, f.id, messages, 0, NULL);
  args[1] = f.db->path;

  g_assert_cmpint (pd_test_run_app (args, check_export_off_main, &f, NULL), ==, 0);

  g_free (f.id);
  pd_test_db_free (f.db);
}

/* As an attacker would: a session whose every field is hostile.  Outside
 * fences nothing may stay HTML or Markdown of the attacker's making, and no
 * control or bidi character may reach the file raw, inside fences either. */
#define HOSTILE "Title <b>bold</b> <a href=\"http://evil\">x</a> \033[31mred \342\200\256evil``` *em* _u_ [l](x) # & <img src=x onerror=alert(1)>"

/* Whether @line holds a "<" that starts anything but our "<U+XXXX>". */
static gboolean
has_raw_tag (const char *line)
{
  for (const char *p = strchr (line, '<'); p != NULL; p = strchr (p + 1, '<'))
    if (!g_str_has_prefix (p, "<U+"))
      return TRUE;
  return FALSE;
}

static void
test_export_hostile (void)
{
  PdSessionInfo info = { 0 };
  g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);
  g_autoptr(GPtrArray) versions = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_version_info_free);
  g_autoptr(JsonArray) messages = json_array_new ();
  PdPlanVersionInfo *version = g_new0 (PdPlanVersionInfo, 1);
  PdPlanStep *step = g_ptr_array_index (plan->steps, 0);
  g_autofree char *markdown = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean in_fence = FALSE;
  g_autofree char *fence = NULL;

  info.id = (char *) "id-1";
  info.name = (char *) HOSTILE;
  info.task = (char *) HOSTILE;
  info.model = (char *) HOSTILE;
  info.provider = (char *) HOSTILE;
  info.source = (char *) HOSTILE;
  info.cwd = (char *) "/tmp/a`b ``c <d>";
  g_free (step->title);
  step->title = g_strdup (HOSTILE);
  g_free (step->note);
  step->note = g_strdup (HOSTILE);
  version->version = 1;
  /* A check's description and evidence too. */
  {
    PdPlanCheck *check = g_ptr_array_index (step->checks, 0);

    g_free (check->description);
    check->description = g_strdup (HOSTILE);
    check->call_id = g_strdup ("c`1 <b>*x*</b>");
  }
  version->state_json = pd_plan_state_to_json (plan);
  g_ptr_array_add (versions, version);
  json_array_add_object_element (messages, pd_test_message ("tool", "out \033]0;title\007 \033[2J \342\200\256rev\302\233x"));

  markdown = pd_session_export_markdown (&info, messages, versions, NULL);
  g_test_message ("%s", markdown);

  /* Nowhere raw: ESC, BEL, C1 CSI, U+202E. */
  g_assert_null (strchr (markdown, '\033'));
  g_assert_null (strchr (markdown, '\007'));
  g_assert_null (strstr (markdown, "\302\233"));
  g_assert_null (strstr (markdown, "\342\200\256"));
  g_assert_nonnull (strstr (markdown, "<U+001B>]0;title<U+0007>"));
  g_assert_nonnull (strstr (markdown, "<U+202E>rev"));

  g_assert_true (g_str_has_prefix (markdown,
    "# Title &lt;b&gt;bold&lt;/b&gt; &lt;a href=\"http://evil\"&gt;x&lt;/a&gt; <U+001B>\\[31mred <U+202E>evil\\`\\`\\` "
    "\\*em\\* \\_u\\_ \\[l\\]\\(x\\) \\# &amp; &lt;img src=x onerror=alert\\(1\\)&gt;\n"));
  g_assert_nonnull (strstr (markdown, "\n  - Check read: Title &lt;b&gt;bold&lt;/b&gt; "));
  g_assert_nonnull (strstr (markdown, "evidence from the call c\\`1 &lt;b&gt;\\*x\\*&lt;/b&gt;\n"));
  /* The folder's span outlasts the backticks inside it. */
  g_assert_nonnull (strstr (markdown, "- Folder: ```/tmp/a`b ``c <d>```\n"));

  /* Every line outside fences: no tag, no unescaped backtick or emphasis. */
  lines = g_strsplit (markdown, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (in_fence)
        {
          if (g_str_equal (line, fence))
            in_fence = FALSE;
          g_assert_null (strchr (line, '\033'));
          continue;
        }
      if (g_str_has_prefix (line, "```"))
        {
          g_free (fence);
          fence = g_strndup (line, strspn (line, "`"));
          in_fence = TRUE;
          continue;
        }
      if (g_str_has_prefix (line, "- Folder: "))
        continue;
      g_assert_false (has_raw_tag (line));
      for (const char *p = line; *p; p++)
        if (strchr ("`*_[]", *p) != NULL && !(p > line && p[-1] == '\\') &&
            !(g_str_has_prefix (line, "- [") && p - line <= 4) &&
            !g_str_has_prefix (line, "- Session: ") && !g_str_has_prefix (line, "Tool call: "))
          g_error ("unescaped %c in line %s", *p, line);
    }
  g_assert_false (in_fence);
}

/* --- the name the chooser offers for a long title ----------------------------- */

/* Cut at 64 bytes the name ended "…the resumed sessio"; a title of one word
 * long enough is cut at a character, never inside one's bytes. */
#define LONG_TITLE "Refactor the import of Codex sessions so that the resumed sessions keep their plans"
#define LONG_WORD "Ünïcödé" "Ünïcödé" "Ünïcödé" "Ünïcödé" "Ünïcödé" "Ünïcödé" "Ünïcödé" "Ünïcödé" "Ünïcödé" "Ünïcödé"

static char *
offered_name (PdWindow   *window,
              const char *id)
{
  GtkWindow *chooser;
  char *name;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.export-markdown", "s", id);
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (GTK_TYPE_FILE_CHOOSER), "the file chooser");
  chooser = pd_test_mapped_toplevel (GTK_TYPE_FILE_CHOOSER);
  name = gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (chooser));
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  pd_test_wait_until (pd_test_toplevel_gone, GSIZE_TO_POINTER (GTK_TYPE_FILE_CHOOSER), "the file chooser to close");
  return name;
}

static void
check_export_long_name (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  char **ids = user_data;
  g_autofree char *name = NULL;
  g_autofree char *word = NULL;
  g_autofree char *stem = NULL;

  pd_test_wait_until (list_loaded, window, "the list");

  name = offered_name (window, ids[0]);
  g_test_message ("offered: %s", name);
  g_assert_true (g_str_has_suffix (name, ".md"));
  stem = g_strndup (name, strlen (name) - 3);
  /* Whole words of the title, and no more than the chooser shows. */
  g_assert_true (g_str_has_prefix (LONG_TITLE, stem));
  g_assert_true (LONG_TITLE[strlen (stem)] == ' ');
  g_assert_cmpuint (g_utf8_strlen (stem, -1), <=, 64);
  g_assert_cmpuint (g_utf8_strlen (stem, -1), >=, 40);

  word = offered_name (window, ids[1]);
  g_test_message ("offered: %s", word);
  g_assert_true (g_utf8_validate (word, -1, NULL));
  g_assert_true (g_str_has_suffix (word, ".md"));
  g_assert_cmpuint (g_utf8_strlen (word, -1), ==, 64 + 3);
}

static void
test_export_long_name (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  char *ids[2];
  const char *args[] = { "--db", db->path, NULL };

  ids[0] = pd_test_db_create_session (db, LONG_TITLE);
  ids[1] = pd_test_db_create_session (db, LONG_WORD);
  g_assert_cmpint (pd_test_run_app (args, check_export_long_name, ids, NULL), ==, 0);
  g_free (ids[0]);
  g_free (ids[1]);
}

/* --- hostile and odd titles -------------------------------------------------- */

/* Tried as an attacker would (a title from an endpoint or an agent) and as a
 * new user would: what the chooser offers for each title. */
static const struct
{
  const char *title;
  const char *name;   /* NULL: checked by its properties below */
} odd_titles[] = {
  /* ESC, DEL and C0 controls in a name print an escape sequence when a
   * terminal lists the folder; separators make no folders. */
  { "\001\033[31m\177/../../etc/passwd", "[31m -..-..-etc-passwd.md" },
  /* The title's full stop and backticks stayed: "…everywhere..md". */
  { "Rename the `station` column to `gauge` everywhere.", "Rename the station column to gauge everywhere.md" },
  /* Bidi controls reorder what the name shows ("gnp.md exe.live"). */
  { "\342\200\256evil.exe\342\200\254 gnp.md", "evil.exe gnp.md.md" },
  { "line1\nline2\rline3\tend\302\205x", "line1 line2 line3 end x.md" },
  { "/etc/motd", "etc-motd.md" },
  /* Emoji are the title's own: a title of them gave "session.md". */
  { "\360\237\232\200\360\237\232\200 \360\237\214\231", "\360\237\232\200\360\237\232\200 \360\237\214\231.md" },
  { "\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200"
    "\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200"
    "\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200"
    "\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200"
    "\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200"
    "\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200"
    "\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200"
    "\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200"
    "\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200"
    "\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200\360\237\232\200", NULL },
  { "...", "session.md" },
  /* Cut at a word, but a dangling one: "…takes an ISO time and.md" (tried
   * as a new user would, nu15; the Codex fixture's title). */
  { "Add a --since filter to `logtail show` that takes an ISO time and skips older entries.",
    "Add a --since filter to logtail show that takes an ISO time.md" },
  { "Make the parser of the config file of the daemon faster for the case of a, the",
    "Make the parser of the config file of the daemon faster.md" },
};

/* 70 × U+20000 (a CJK letter of four bytes): cut at 64 characters, the
 * name was 259 bytes, and GTK refused it ("the filename is too long"). */
static char *
long_cjk_title (void)
{
  GString *title = g_string_new (NULL);

  for (guint i = 0; i < 70; i++)
    g_string_append_unichar (title, 0x20000);
  return g_string_free (title, FALSE);
}

static void
check_name_is_safe (const char *name)
{
  g_assert_true (g_utf8_validate (name, -1, NULL));
  g_assert_cmpuint (strlen (name), <=, 200 + strlen (".json"));
  g_assert_null (strchr (name, '/'));
  g_assert_null (strchr (name, '`'));
  g_assert_false (name[0] == '.' || name[0] == '-' || name[0] == ' ');
  g_assert_false (g_str_has_suffix (name, "..md"));
  for (const char *p = name; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_assert_false (g_unichar_iscntrl (c));
      g_assert_cmpint (g_unichar_type (c), !=, G_UNICODE_FORMAT);
    }
}

static void
check_export_odd_names (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  char **ids = user_data;
  g_autofree char *cjk = NULL;

  pd_test_wait_until (list_loaded, window, "the list");

  for (guint i = 0; i < G_N_ELEMENTS (odd_titles); i++)
    {
      g_autofree char *name = offered_name (window, ids[i]);

      g_test_message ("offered: %s", name);
      check_name_is_safe (name);
      if (odd_titles[i].name != NULL)
        g_assert_cmpstr (name, ==, odd_titles[i].name);
      else
        /* Whole emoji within the bound, none eaten as punctuation. */
        g_assert_cmpuint (g_utf8_strlen (name, -1), ==, 50 + 3);
    }

  cjk = offered_name (window, ids[G_N_ELEMENTS (odd_titles)]);
  check_name_is_safe (cjk);
  g_assert_true (g_str_has_suffix (cjk, ".md"));
  g_assert_cmpuint (strlen (cjk), ==, 50 * 4 + 3);
}

static void
test_export_odd_names (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *cjk_title = long_cjk_title ();
  char *ids[G_N_ELEMENTS (odd_titles) + 2] = { NULL };
  const char *args[] = { "--db", db->path, NULL };

  for (guint i = 0; i < G_N_ELEMENTS (odd_titles); i++)
    ids[i] = pd_test_db_create_session (db, odd_titles[i].title);
  ids[G_N_ELEMENTS (odd_titles)] = pd_test_db_create_session (db, cjk_title);
  g_assert_cmpint (pd_test_run_app (args, check_export_odd_names, ids, NULL), ==, 0);
  for (guint i = 0; ids[i] != NULL; i++)
    g_free (ids[i]);
}

/* --- statuses in the app's words --------------------------------------------- */

/* The Markdown wrote the database's words, "(in\_progress)", where the app
 * says "In progress" (tried as a new user would); an agent's cancelled item
 * was "(blocked)" where the checklist and History say "Cancelled". */
static void
test_export_statuses (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);
  g_autoptr(GPtrArray) versions = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_version_info_free);
  PdPlanVersionInfo *version = g_new0 (PdPlanVersionInfo, 1);
  g_autofree char *gemini = g_build_filename (g_getenv ("PD_FIXTURES_DIR"), "gemini", "tmp", NULL);
  const char *argv[] = { g_getenv ("PLANDECK_AGENT"), "import", "--db", db->path, "--gemini-dir", gemini, NULL };
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(GPtrArray) imported = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *markdown = NULL;
  g_autofree char *gemini_markdown = NULL;
  g_autofree char *gemini_json = NULL;
  g_autofree char *gemini_id = NULL;
  g_autoptr(GPtrArray) listed = NULL;
  PdSessionInfo info = { 0 };
  guint total = 0;
  int status = -1;

  info.id = (char *) "id-1";
  info.name = (char *) "Add the export subcommand";
  info.status = PD_SESSION_STATUS_INTERRUPTED;
  version->version = 1;
  version->state_json = pd_plan_state_to_json (plan);
  g_ptr_array_add (versions, version);
  markdown = pd_session_export_markdown (&info, NULL, versions, NULL);
  g_test_message ("%s", markdown);
  g_assert_nonnull (strstr (markdown, "- Status: Interrupted\n"));
  /* Steps left, unchanged for a day: "Stalled", as `sessions list`, its
   * row and its Overview card say; the export said "Idle" (tried as a new
   * user would, nu15). */
  {
    PdSessionInfo stalled = info;
    g_autofree char *text = NULL;

    stalled.status = PD_SESSION_STATUS_IDLE;
    stalled.plan_total = 4;
    stalled.plan_done = 1;
    stalled.updated_at = g_get_real_time () - (gint64) 24 * 3600 * G_USEC_PER_SEC;
    text = pd_session_export_markdown (&stalled, NULL, versions, NULL);
    g_assert_nonnull (strstr (text, "- Status: Stalled\n"));
  }
  g_assert_nonnull (strstr (markdown, "- [x] Read the session store and its migrations (Done)"));
  g_assert_nonnull (strstr (markdown, "- [ ] Add the export subcommand (In progress)"));
  g_assert_nonnull (strstr (markdown, "- [ ] Document the export format (Blocked)"));
  g_assert_nonnull (strstr (markdown, "- [ ] Run the whole test suite (Pending)"));
  g_assert_null (strstr (markdown, "in\\_progress"));

  /* A Gemini CLI session whose agent cancelled an item, read from its
   * transcript as the window reads it. */
  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  store = pd_test_open_store (db->path);
  /* The session's id is made from the transcript's path, so it is found by
   * its title: the test passes in any checkout. */
  listed = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < listed->len && gemini_id == NULL; i++)
    {
      PdSessionInfo *listed_info = g_ptr_array_index (listed, i);

      if (g_strcmp0 (listed_info->task, "Reload lantern's config on SIGHUP") == 0)
        gemini_id = g_strdup (listed_info->id);
    }
  g_assert_nonnull (gemini_id);
  imported = pd_session_reads_list_plan_versions (store, gemini_id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (imported->len, >, 0);
  messages = pd_session_reads_load_messages (store, gemini_id, &error);
  g_assert_no_error (error);
  info.id = gemini_id;
  info.name = (char *) "Reload lantern's config on SIGHUP";
  info.status = PD_SESSION_STATUS_IDLE;
  gemini_markdown = pd_session_export_markdown (&info, messages, imported, NULL);
  g_test_message ("%s", gemini_markdown);
  g_assert_nonnull (strstr (gemini_markdown, "- Status: Idle\n"));
  g_assert_nonnull (strstr (gemini_markdown, "- [ ] Document the signal (Cancelled)"));
  g_assert_null (strstr (gemini_markdown, "(blocked)"));
  g_assert_null (strstr (gemini_markdown, "(Blocked)"));
  g_assert_null (strstr (gemini_markdown, "in\\_progress"));
  /* And its JSON: the item's status is cancelled, as the window shows it
   * (it said "blocked" beside a summary of blocked 0). */
  gemini_json = pd_session_export_json (&info, messages, imported, NULL);
  g_assert_nonnull (strstr (gemini_json, "\"title\" : \"Document the signal\",\n"
                                         "            \"status\" : \"cancelled\",\n"
                                         "            \"agent_status\" : \"cancelled\""));
}

/* --- acceptance checks ---------------------------------------------------------- */

/* A message whose content comes in parts (as Anthropic's and
 * OpenAI's do): its texts, a blank line between them; parts without text
 * (an image) are left out. */
static void
test_export_content_parts (void)
{
  g_autoptr(GPtrArray) versions = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_version_info_free);
  g_autoptr(JsonArray) messages = json_array_new ();
  g_autoptr(JsonNode) message = json_from_string ("{\"role\":\"user\",\"content\":["
                                                  "{\"type\":\"text\",\"text\":\"First part\"},"
                                                  "{\"type\":\"image\"},"
                                                  "{\"type\":\"text\",\"text\":\"Second part\"}]}", NULL);
  g_autofree char *markdown = NULL;
  PdSessionInfo info = { 0 };

  info.id = (char *) "id-1";
  info.name = (char *) "Parts";
  json_array_add_element (messages, g_steal_pointer (&message));
  markdown = pd_session_export_markdown (&info, messages, versions, NULL);
  g_test_message ("%s", markdown);

  g_assert_nonnull (strstr (markdown, "First part\n\nSecond part"));
  g_assert_null (strstr (markdown, "image"));
}

/* The Markdown dropped each step's acceptance checks, which the JSON has:
 * now each is an item under its step with its state in the app's words,
 * its tool and arguments, and its evidence (the call that passed it). */
static void
test_export_checks (void)
{
  g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);
  g_autoptr(GPtrArray) versions = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_version_info_free);
  PdPlanVersionInfo *version = g_new0 (PdPlanVersionInfo, 1);
  PdPlanStep *step = g_ptr_array_index (plan->steps, 1);
  PdPlanCheck *build = g_ptr_array_index (step->checks, 0);
  g_autofree char *markdown = NULL;
  PdSessionInfo info = { 0 };

  build->call_id = g_strdup ("call_7");
  info.id = (char *) "id-1";
  info.name = (char *) "Add the export subcommand";
  version->version = 1;
  version->state_json = pd_plan_state_to_json (plan);
  g_ptr_array_add (versions, version);
  markdown = pd_session_export_markdown (&info, NULL, versions, NULL);
  g_test_message ("%s", markdown);

  g_assert_nonnull (strstr (markdown,
    "- [ ] Add the export subcommand (In progress) — Writing JSON with json-glib; the tests come next\n"
    "  - Check build: builds (Passed) — tool shell, arguments \\{\"command\":\"ninja -C \\_build\"\\}, "
    "evidence from the call call\\_7\n"
    "  - Check tests: export tests pass (Failed) — tool shell, arguments "
    "\\{\"command\":\"meson test -C \\_build export\"\\}, no evidence yet\n"));
  g_assert_nonnull (strstr (markdown, "  - Check docs: man page builds (Blocked) — tool shell"));
  g_assert_nonnull (strstr (markdown, "  - Check all: all tests pass (Pending) — tool shell"));
  g_assert_nonnull (strstr (markdown, "  - Check read: store read (Passed) — tool read\\_file, arguments "
                                      "\\{\"path\":\"core/store/pd-db.c\"\\}, no evidence yet\n"));
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/session-actions/export", test_export);
  g_test_add_func ("/pd/ui/session-actions/export-folder", test_export_folder);
  g_test_add_func ("/pd/ui/session-actions/export-then-delete", test_export_then_delete);
  g_test_add_func ("/pd/ui/session-actions/export-long-name", test_export_long_name);
  g_test_add_func ("/pd/ui/session-actions/export-odd-names", test_export_odd_names);
  g_test_add_func ("/pd/ui/session-actions/export-statuses", test_export_statuses);
  g_test_add_func ("/pd/ui/session-actions/export-checks", test_export_checks);
  g_test_add_func ("/pd/ui/session-actions/export-content-parts", test_export_content_parts);
  g_test_add_func ("/pd/ui/session-actions/export-off-main-thread", test_export_off_main);
  g_test_add_func ("/pd/ui/session-actions/export-hostile", test_export_hostile);

  return g_test_run ();
}
