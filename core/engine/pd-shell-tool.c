/* pd-shell-tool.c: the shell tool — runs a command with bash -c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#define _GNU_SOURCE

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <glib-unix.h>

#include <glib/gi18n-lib.h>

#include "pd-json-util.h"
#include "pd-shell-sweep-private.h"
#include "pd-shell-tool.h"
#include "pd-tool-private.h"

/* After bash exits, background jobs it left behind get this long to finish
 * writing before the rest of its process group is killed. */
#define GRACE_MS 1000
/* After asking the reaper to end everything (SIGTERM), how long before the
 * whole group gets SIGKILL anyway. */
#define REAPER_TERM_MS 500
/* After a kill, how long the pipe may stay open (a process that left the
 * group still holds it) before the output is abandoned. */
#define DRAIN_MS 2000
#define READ_CHUNK 16384

typedef struct
{
  GMainContext *context;
  GCancellable *read_cancellable;   /* ours: abandons the pipe */
  GInputStream *pipe;
  pid_t         pgid;
  guint64       mark;           /* see pd-shell-sweep.c */
  gboolean      swept;

  GByteArray   *head;
  GByteArray   *tail;
  gsize         head_cap;
  gsize         tail_cap;
  guint64       total;

  int           wait_status;

  gboolean      reading;
  gboolean      waiting;
  gboolean      eof;
  gboolean      exited;
  gboolean      timed_out;
  gboolean      cancelled;
  int           cancel_asked;   /* atomic: set by the cancellable's handler */
  gboolean      group_killed;
  gboolean      group_hard_killed;
  gboolean      drain_expired;

  GSource      *grace_source;
  GSource      *drain_source;
  GSource      *hard_kill_source;
} ShellRun;

static void start_read (ShellRun *run);

/* The reaper is reaped: whatever of the call is left (all of it when a
 * command killed its reaper: bash, its jobs, as the engine's orphans) is
 * killed, once. */
static void
end_call (ShellRun *run)
{
  if (run->swept)
    return;
  run->swept = TRUE;
  _pd_shell_sweep_end (run->mark, run->pgid);
}

static void
destroy_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static GSource *
add_timeout (ShellRun    *run,
             guint        ms,
             GSourceFunc  func)
{
  GSource *source = g_timeout_source_new (ms);

  g_source_set_callback (source, func, run, NULL);
  g_source_attach (source, run->context);

  return source;
}

static gboolean
on_drain_expired (gpointer data)
{
  ShellRun *run = data;

  run->drain_expired = TRUE;
  g_cancellable_cancel (run->read_cancellable);
  g_clear_pointer (&run->drain_source, g_source_unref);

  return G_SOURCE_REMOVE;
}

static gboolean
on_hard_kill (gpointer data)
{
  ShellRun *run = data;

  g_clear_pointer (&run->hard_kill_source, g_source_unref);
  run->group_hard_killed = TRUE;
  if (run->pgid > 1)
    kill (-run->pgid, SIGKILL);

  return G_SOURCE_REMOVE;
}

/* The command runs under a reaper of its own (see child_setup()): the
 * leader of a new session and process group, and the subreaper of all
 * bash starts.  SIGTERM asks it to kill every descendant, including those
 * that left the group or the session (set -m, setsid), which a group kill
 * cannot reach; the group gets SIGKILL shortly after in case the reaper
 * could not do it.  The group id could only be reused once every member
 * is gone, in which case ESRCH is the expected outcome. */
static void
kill_group (ShellRun *run)
{
  if (run->group_killed)
    return;

  run->group_killed = TRUE;
  if (run->pgid > 1)
    {
      if (run->waiting)
        {
          kill (run->pgid, SIGTERM);
          run->hard_kill_source = add_timeout (run, REAPER_TERM_MS, on_hard_kill);
        }
      else
        {
          kill (-run->pgid, SIGKILL);
          end_call (run);
        }
    }

  destroy_source (&run->grace_source);
  if (!run->eof)
    run->drain_source = add_timeout (run, DRAIN_MS, on_drain_expired);
}

static gboolean
on_timeout (gpointer data)
{
  ShellRun *run = data;

  /* Once bash has exited the command finished in time; only background
   * jobs it left are still draining and the grace kill deals with them. */
  if (!run->exited)
    run->timed_out = TRUE;
  kill_group (run);

  return G_SOURCE_REMOVE;
}

static gboolean
on_grace_expired (gpointer data)
{
  ShellRun *run = data;

  g_clear_pointer (&run->grace_source, g_source_unref);
  kill_group (run);

  return G_SOURCE_REMOVE;
}

/* The cancellable's handler, on whichever thread cancels: the run's loop
 * is woken and kills the group.  Not a GCancellableSource: under GLib 2.74
 * one cancelled while its loop ends on another thread was sometimes never
 * freed (valgrind's definite leak in the tools test, one run in several). */
static void
on_cancel_asked (GCancellable *cancellable,
                 gpointer      data)
{
  ShellRun *run = data;

  g_atomic_int_set (&run->cancel_asked, 1);
  g_main_context_wakeup (run->context);
}

static void
check_cancelled (ShellRun *run)
{
  if (run->cancelled || !g_atomic_int_get (&run->cancel_asked))
    return;
  run->cancelled = TRUE;
  kill_group (run);
}

static void
append_output (ShellRun     *run,
               const guint8 *data,
               gsize         len)
{
  gsize to_head = MIN (len, run->head_cap - run->head->len);

  run->total += len;
  g_byte_array_append (run->head, data, to_head);
  g_byte_array_append (run->tail, data + to_head, len - to_head);

  /* Trim in batches: keeping twice the tail keeps the copying amortized. */
  if (run->tail->len > 2 * run->tail_cap)
    g_byte_array_remove_range (run->tail, 0, run->tail->len - run->tail_cap);
}

static void
on_read (GObject      *object,
         GAsyncResult *result,
         gpointer      data)
{
  ShellRun *run = data;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  run->reading = FALSE;
  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      /* End of output, an I/O error or our own abandon: stop reading. */
      run->eof = TRUE;
      destroy_source (&run->grace_source);
      destroy_source (&run->drain_source);
      return;
    }

  append_output (run, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));

  if (!run->drain_expired)
    start_read (run);
}

static void
start_read (ShellRun *run)
{
  run->reading = TRUE;
  g_input_stream_read_bytes_async (run->pipe, READ_CHUNK, G_PRIORITY_DEFAULT,
                                   run->read_cancellable, on_read, run);
}

static void
on_exited (GPid     pid,
           int      wait_status,
           gpointer data)
{
  ShellRun *run = data;

  g_spawn_close_pid (pid);
  run->wait_status = wait_status;
  run->waiting = FALSE;
  run->exited = TRUE;

  if (!run->eof && !run->group_killed)
    run->grace_source = add_timeout (run, GRACE_MS, on_grace_expired);
}

/* The reaper: everything from here to child_setup() runs in the forked
 * child between fork and exec, so only async-signal-safe calls (system
 * calls, no allocation, no stdio). */

static gint64
reaper_now_ms (void)
{
  struct timespec now;

  clock_gettime (CLOCK_MONOTONIC, &now);

  return (gint64) now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* SIGKILL to each of the reaper's children, read from /proc: a child is
 * ours until we reap it, so a listed pid cannot have been reused. */
static void
reaper_kill_children (void)
{
  char buf[4096];
  pid_t pid = 0;
  gboolean in_number = FALSE;
  ssize_t n;
  int fd = open ("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return;
  while ((n = read (fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    for (ssize_t i = 0; i < n; i++)
      {
        if (buf[i] >= '0' && buf[i] <= '9')
          {
            pid = pid * 10 + (buf[i] - '0');
            in_number = TRUE;
          }
        else if (in_number)
          {
            if (pid > 1)
              kill (pid, SIGKILL);
            pid = 0;
            in_number = FALSE;
          }
      }
  if (in_number && pid > 1)
    kill (pid, SIGKILL);
  close (fd);
}

/* Reaps what has ended; FALSE once the reaper has no child left. */
static gboolean
reaper_reap (pid_t     bash,
             int      *bash_status,
             gboolean *bash_done)
{
  for (;;)
    {
      int status;
      pid_t done = waitpid (-1, &status, WNOHANG);

      if (done == bash)
        {
          *bash_status = status;
          *bash_done = TRUE;
        }
      else if (done == 0)
        return TRUE;
      else if (done < 0 && errno != EINTR)
        return FALSE;
    }
}

G_GNUC_NORETURN static void
reaper_run (pid_t           bash,
            const sigset_t *waited)
{
  const struct timespec tick = { 0, 50 * 1000 * 1000 };
  const struct rlimit no_core = { 0, 0 };
  struct sigaction dfl = { 0 };
  int bash_status = 0;
  gboolean bash_done = FALSE;
  gboolean terminated = FALSE;
  gint64 bash_end = 0;
  sigset_t one;

  /* Hold no part of the output pipe (its end of output is the engine's
   * signal), nor GLib's exec-error pipe (its end says bash started). */
  if (syscall (SYS_close_range, 0, ~0U, 0) != 0)
    for (int fd = 0; fd < 65536; fd++)
      close (fd);

  /* Wait for bash; after it, its jobs get GRACE_MS to end on their own. */
  for (;;)
    {
      int sig;

      if (!reaper_reap (bash, &bash_status, &bash_done))
        break;
      if (bash_done && bash_end == 0)
        bash_end = reaper_now_ms ();
      if (bash_done && reaper_now_ms () - bash_end >= GRACE_MS)
        break;
      sig = sigtimedwait (waited, NULL, &tick);
      if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP)
        {
          terminated = TRUE;
          break;
        }
    }

  /* Kill every descendant: the orphans come to us (we are their
   * subreaper) as each parent dies, so kill and reap until none is left. */
  for (;;)
    {
      reaper_kill_children ();
      if (!reaper_reap (bash, &bash_status, &bash_done))
        break;
      sigtimedwait (waited, NULL, &tick);
    }

  if (terminated || !bash_done)
    bash_status = SIGTERM;   /* as a wait status: killed by SIGTERM */
  if (WIFEXITED (bash_status))
    _exit (WEXITSTATUS (bash_status));

  /* Die of bash's signal, so the engine reports it as bash's; no core. */
  setrlimit (RLIMIT_CORE, &no_core);
  dfl.sa_handler = SIG_DFL;
  sigaction (WTERMSIG (bash_status), &dfl, NULL);
  sigemptyset (&one);
  sigaddset (&one, WTERMSIG (bash_status));
  kill (getpid (), WTERMSIG (bash_status));
  sigprocmask (SIG_UNBLOCK, &one, NULL);
  _exit (128 + WTERMSIG (bash_status));
}

/* What the reaper is given, read in the forked child. */
typedef struct
{
  guint64 mark;
  pid_t   engine;
} ReaperSetup;

static void
child_setup (gpointer data)
{
  const ReaperSetup *setup = data;
  struct sigaction dfl = { 0 };
  sigset_t waited;
  sigset_t old_mask;
  pid_t bash;

  /* The leader of a new session and process group, that kill_group() can
   * reach as a whole. */
  setsid ();

  /* Should the engine die mid-call (SIGKILL, a crash), the reaper is told
   * as by Stop, and ends the call's processes.  The engine may be gone
   * already: then its parent has changed. */
  prctl (PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
  if (getppid () != setup->engine)
    kill (getpid (), SIGTERM);

  /* The call's mark, on every process it starts (pd-shell-sweep.c): if
   * the command kills this reaper, the engine knows what to kill. */
  if (setup->mark != 0)
    {
      const struct rlimit marked = { setup->mark, setup->mark };

      setrlimit (RLIMIT_LOCKS, &marked);
    }

  /* A job can leave the group and the session (set -m, setsid, setpgid):
   * this process stays as their subreaper, waits for bash, then kills
   * every descendant before it exits with bash's status.  Without it
   * (prctl or fork failing) bash runs here, reached by the group kill. */
  if (prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    return;

  dfl.sa_handler = SIG_DFL;
  sigaction (SIGCHLD, &dfl, NULL);
  sigemptyset (&waited);
  sigaddset (&waited, SIGCHLD);
  sigaddset (&waited, SIGTERM);
  sigaddset (&waited, SIGINT);
  sigaddset (&waited, SIGHUP);
  sigprocmask (SIG_BLOCK, &waited, &old_mask);

  /* _Fork: fork() runs the atfork handlers, not async-signal-safe. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  bash = _Fork ();
#else
  bash = fork ();
#endif
  if (bash == 0)
    {
      /* bash: not a subreaper of its own, the mask it was given. */
      prctl (PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
      sigprocmask (SIG_SETMASK, &old_mask, NULL);
      return;
    }
  if (bash < 0)
    {
      prctl (PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
      sigprocmask (SIG_SETMASK, &old_mask, NULL);
      return;
    }

  reaper_run (bash, &waited);
}

static char *
collect_output (ShellRun *run,
                gboolean *truncated)
{
  g_autoptr(GString) out = g_string_sized_new (run->head->len + run->tail_cap + 64);

  g_string_append_len (out, (const char *) run->head->data, run->head->len);

  if (run->total > run->head_cap + run->tail_cap)
    {
      guint64 omitted = run->total - run->head_cap - run->tail_cap;

      g_string_append_printf (out, "\n[… %" G_GUINT64_FORMAT " bytes of output omitted …]\n",
                              omitted);
      g_string_append_len (out, (const char *) run->tail->data + (run->tail->len - run->tail_cap),
                           run->tail_cap);
      *truncated = TRUE;
    }
  else
    {
      g_string_append_len (out, (const char *) run->tail->data, run->tail->len);
    }

  if (out->len == 0)
    g_string_append (out, "(no output)");

  if (out->str[out->len - 1] != '\n')
    g_string_append_c (out, '\n');

  /* A command may print anything; the model gets UTF-8 text. */
  if (!g_utf8_validate (out->str, out->len, NULL) || memchr (out->str, '\0', out->len))
    {
      g_autofree char *valid = NULL;

      for (gsize i = 0; i < out->len; i++)
        if (out->str[i] == '\0')
          out->str[i] = '?';
      valid = g_utf8_make_valid (out->str, out->len);
      g_string_assign (out, valid);
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

PdToolResult *
_pd_shell_run (const PdToolCall *call)
{
  g_autoptr(GInputStream) pipe = NULL;
  g_autoptr(GMainContext) main_context = NULL;
  g_autoptr(GSource) child_source = NULL;
  g_auto(GStrv) envp = NULL;
  g_autoptr(GCancellable) read_cancellable = NULL;
  g_autoptr(GByteArray) head = NULL;
  g_autoptr(GByteArray) tail = NULL;
  g_autoptr(GSource) timeout_source = NULL;
  gulong cancel_id = 0;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *output = NULL;
  const char *argv[] = { "bash", "-c", NULL, NULL };
  PdToolResult *result;
  const char *command = call->arg[0].string;
  gint64 deadline;
  /* 0: left out (a given one is at least 1), the session's then */
  gint64 timeout_ms = call->arg[1].integer ? call->arg[1].integer
                                           : pd_tool_context_get_shell_timeout_ms (call->context);
  gsize cap = pd_tool_context_get_output_cap (call->context);
  gboolean truncated = FALSE;
  gboolean deadline_cut = FALSE;
  gboolean spawned;
  ShellRun run = { 0 };
  ReaperSetup setup = { 0 };
  int pipe_fds[2];
  GPid pid;
  int status;

  if (*command == '\0')
    return pd_tool_result_new (FALSE, "shell: 'command' is empty");
  argv[2] = command;

  /* The run's deadline shortens the timeout; it is not a failure of the
   * command, so it is told apart in the result. */
  deadline = pd_tool_context_get_deadline (call->context);
  if (deadline > 0)
    {
      gint64 remaining_ms = MAX ((deadline - g_get_monotonic_time ()) / 1000, 1);

      if (remaining_ms < timeout_ms)
        {
          timeout_ms = remaining_ms;
          deadline_cut = TRUE;
        }
    }

  /* Our own pipe, both stdout and stderr of the command. */
  if (!g_unix_open_pipe (pipe_fds, FD_CLOEXEC, &local_error))
    {
      g_set_error (call->error, PD_TOOL_ERROR, PD_TOOL_ERROR_FAILED,
                   "shell: cannot make a pipe: %s", local_error->message);
      return NULL;
    }

  /* The environment is built, not inherited: provider keys stay out of it
   * (the output goes back to a model).  DO_NOT_REAP: the reaper's pid (bash's
   * parent), which is its process group's id, stays ours until our child watch reaps it, so
   * the group kill can never miss because the pid was already reaped and
   * forgotten (GSubprocess forgets its identifier once it reaps). */
  envp = pd_tool_context_build_env (call->context);
  run.mark = _pd_shell_sweep_begin ();
  setup.mark = run.mark;
  setup.engine = getpid ();
  spawned = g_spawn_async_with_pipes_and_fds (pd_tool_context_get_working_dir (call->context), argv,
                                              (const char * const *) envp,
                                              G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH |
                                              G_SPAWN_STDIN_FROM_DEV_NULL,
                                              child_setup, &setup,
                                              -1, pipe_fds[1], pipe_fds[1], NULL, NULL, 0,
                                              &pid, NULL, NULL, NULL, &local_error);
  close (pipe_fds[1]);
  _pd_shell_sweep_spawned (run.mark, spawned ? pid : 0);
  if (!spawned)
    {
      _pd_shell_sweep_end (run.mark, 0);
      close (pipe_fds[0]);
      g_set_error (call->error, PD_TOOL_ERROR, PD_TOOL_ERROR_FAILED,
                   "shell: cannot start bash: %s", local_error->message);
      return NULL;
    }

  run.pgid = pid;
  pipe = g_unix_input_stream_new (pipe_fds[0], TRUE);

  main_context = g_main_context_new ();
  read_cancellable = g_cancellable_new ();
  head = g_byte_array_new ();
  tail = g_byte_array_new ();

  run.context = main_context;
  run.read_cancellable = read_cancellable;
  run.pipe = pipe;
  run.head = head;
  run.tail = tail;
  run.head_cap = cap / 2;
  run.tail_cap = cap - run.head_cap;

  g_main_context_push_thread_default (main_context);

  run.waiting = TRUE;
  child_source = g_child_watch_source_new (pid);
  g_source_set_callback (child_source, G_SOURCE_FUNC (on_exited), &run, NULL);
  g_source_attach (child_source, main_context);
  start_read (&run);

  timeout_source = add_timeout (&run, (guint) timeout_ms, on_timeout);

  if (call->cancellable != NULL)
    cancel_id = g_cancellable_connect (call->cancellable, G_CALLBACK (on_cancel_asked), &run, NULL);

  /* Done when bash is reaped and the pipe is drained (or abandoned), with
   * no callback still pending on this stack frame's state. */
  check_cancelled (&run);
  while (run.waiting || run.reading || !run.exited)
    {
      g_main_context_iteration (main_context, TRUE);
      check_cancelled (&run);
    }
  /* Waits for a handler running on another thread: none touches @run after. */
  g_cancellable_disconnect (call->cancellable, cancel_id);

  /* bash is gone and the output ended, but a job that holds no part of the
   * pipe (`… </dev/null >/dev/null 2>&1 &`, `nohup … & disown`) gave no
   * reason to wait or kill: it would go on changing the folder after the
   * call said it ended.  Nothing of the group outlives the call.  (A job
   * that left the group, with set -m or setsid, was killed by the reaper
   * before it exited; if the command killed the reaper, its processes are
   * the engine's orphans, killed by end_call().) */
  if (!run.group_killed && run.pgid > 1)
    {
      run.group_killed = TRUE;
      kill (-run.pgid, SIGKILL);
    }
  end_call (&run);

  g_source_destroy (timeout_source);
  g_source_destroy (child_source);
  destroy_source (&run.grace_source);
  destroy_source (&run.drain_source);
  destroy_source (&run.hard_kill_source);

  /* Dispatch what the destroyed sources may have left queued. */
  while (g_main_context_iteration (main_context, FALSE))
    ;
  g_main_context_pop_thread_default (main_context);

  if (run.cancelled)
    {
      g_set_error_literal (call->error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           "shell: the command was cancelled and killed");
      return NULL;
    }

  output = collect_output (&run, &truncated);

  if (WIFEXITED (run.wait_status))
    status = WEXITSTATUS (run.wait_status);
  else if (WIFSIGNALED (run.wait_status))
    status = 128 + WTERMSIG (run.wait_status);
  else
    status = -1;

  if (run.timed_out && deadline_cut)
    result = pd_tool_result_new_printf (FALSE, "%skilled: the run's time budget ran out after %"
                                        G_GINT64_FORMAT " ms", output, timeout_ms);
  else if (run.timed_out)
    result = pd_tool_result_new_printf (FALSE, "%skilled: timeout after %" G_GINT64_FORMAT " ms",
                                        output, timeout_ms);
  else if (WIFSIGNALED (run.wait_status))
    result = pd_tool_result_new_printf (FALSE, "%sexit status %d (killed by signal %d)",
                                        output, status, WTERMSIG (run.wait_status));
  else
    result = pd_tool_result_new_printf (status == 0, "%sexit status %d", output, status);

  result->exit_status = status;
  result->truncated = truncated;

  return result;
}

/* The folder the command runs in, then the command, each line whole: "$ "
 * before the first. */
char *
_pd_shell_preview (PdToolContext *context,
                   JsonObject    *args)
{
  GString *out = g_string_new (NULL);
  const char *command = pd_json_get_string (args, "command");

  _pd_tool_preview_append_folder (out, context);
  _pd_tool_preview_append_lines (out, "$ ", "  ", command, PD_TOOL_PREVIEW_MAX_LINES);

  return g_string_free (out, FALSE);
}
