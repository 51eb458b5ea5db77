/* pd-shell-sweep.c: no process of a shell call outlives the call, even
 * once its reaper is gone.
 *
 * bash runs under a reaper (pd-shell-tool.c) that kills every process
 * bash started, but a command can SIGKILL its reaper (`kill -9 $PPID`):
 * what the reaper would have killed then went to PID 1 and lived on after
 * the call and the process.  So while a call runs, the engine process is a
 * child subreaper too: a dead reaper's processes become the engine's
 * children, and once the call is over they are killed and reaped here.
 *
 * The engine has children of its own (other calls' reapers, GLib's and
 * GTK's spawns, and their orphans too while it is a subreaper), and must
 * not kill those, nor reap a pid someone else waits for.  A call's
 * processes are told by a mark no process can take off: the reaper lowers
 * the hard limit of RLIMIT_LOCKS (enforced by no kernel since 2.4, so it
 * changes nothing else) to a value of its own below the engine's, and
 * without CAP_SYS_RESOURCE a hard limit can only go down, on fork, exec and
 * setsid alike.  A process below the engine's limit came from a call; if
 * its value is no running call's, its call is over and it goes.  One that
 * lowers its value to another running call's goes when that call ends.
 *
 * A command can also stop its reaper (SIGSTOP) and then kill the engine:
 * the reaper's SIGTERM on the engine's death then waits behind the stop
 * for good, and so do the jobs it would have killed (they are PID 1's,
 * out of any engine's reach as children).  No process of the same user
 * can be made unstoppable without namespaces (README says what holds), so
 * when the engine's limit is unlimited, as it is by default, the mark
 * also names its engine (pid and start time, below a fixed tag no limit
 * set by hand has), and each call of any engine first ends, anywhere in
 * /proc, the processes whose engine is gone: the stopped reaper and every
 * job of its call.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#define _GNU_SOURCE

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pd-shell-sweep-private.h"

/* How long a process is given to stop (SIGSTOP) before its children are
 * listed anyway: one in uninterruptible sleep may not stop at once. */
#define STOP_WAIT_US 20000

/* A mark that names its engine is RLIM_INFINITY - 1 - X, X being the tag
 * (bits 56-63), the low 20 bits of the engine's start time in clock ticks
 * (36-55), its pid (14-35; pid_max is at most 2^22) and the call's number
 * (0-13).  A start time that matches a new process of the same pid by
 * chance (1 in 2^20) only leaves a dead engine's processes alive. */
#define MARK_TAG        G_GUINT64_CONSTANT (0x5d)
#define MARK_TAG_SHIFT  56
#define MARK_START_SHIFT 36
#define MARK_START_MASK G_GUINT64_CONSTANT (0xfffff)
#define MARK_PID_SHIFT  14
#define MARK_PID_MASK   G_GUINT64_CONSTANT (0x3fffff)
#define MARK_SEQ_MASK   G_GUINT64_CONSTANT (0x3fff)
/* Passes of the dead engines' sweep: each stops what the last one found,
 * so a chain that forks runs out of room well before. */
#define DEAD_SWEEP_PASSES 64

static GMutex sweep_lock;
static guint live_calls;
static gboolean base_known;
static gboolean was_subreaper;    /* made one by someone else: left so */
static guint64 base_mark;         /* the engine's own hard limit, at first use */
static guint64 next_seq;
static GArray *live_marks;        /* guint64: the marks of running calls */
static GArray *live_reapers;      /* pid_t: reapers not reaped yet */
static guint64 engine_tag;        /* tag, start and pid of this engine's marks; 0: none */

typedef struct
{
  pid_t pid;
  int   pidfd;
} Node;

static gboolean
array_has_mark (guint64 mark)
{
  for (guint i = 0; i < live_marks->len; i++)
    if (g_array_index (live_marks, guint64, i) == mark)
      return TRUE;

  return FALSE;
}

static gboolean
array_has_reaper (pid_t pid)
{
  for (guint i = 0; i < live_reapers->len; i++)
    if (g_array_index (live_reapers, pid_t, i) == pid)
      return TRUE;

  return FALSE;
}

/* The mark of a process, from /proc/PID/limits (readable whatever the
 * process's credentials, a zombie's too); FALSE when it is gone. */
static gboolean
read_mark (pid_t    pid,
           guint64 *mark)
{
  char path[64];
  g_autofree char *text = NULL;
  const char *line;

  g_snprintf (path, sizeof path, "/proc/%d/limits", (int) pid);
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;

  line = strstr (text, "\nMax file locks ");
  if (line == NULL)
    return FALSE;

  /* Soft, then hard. */
  line += strlen ("\nMax file locks ");
  while (*line == ' ')
    line++;
  while (*line != ' ' && *line != '\0')
    line++;
  while (*line == ' ')
    line++;
  if (g_str_has_prefix (line, "unlimited"))
    *mark = RLIM_INFINITY;
  else if (g_ascii_isdigit (*line))
    *mark = g_ascii_strtoull (line, NULL, 10);
  else
    return FALSE;

  return TRUE;
}

/* The pids of /proc/PID/task/ * /children, appended to @pids. */
static void
list_children (pid_t   pid,
               GArray *pids)
{
  char path[64];
  g_autoptr(GDir) dir = NULL;
  const char *name;

  g_snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
  dir = g_dir_open (path, 0, NULL);
  if (dir == NULL)
    return;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *children_path = g_strdup_printf ("%s/%s/children", path, name);
      g_autofree char *text = NULL;
      const char *p;

      if (!g_file_get_contents (children_path, &text, NULL, NULL))
        continue;
      for (p = text; *p != '\0';)
        {
          char *end;
          guint64 child = g_ascii_strtoull (p, &end, 10);

          if (end == p)
            {
              p++;
              continue;
            }
          if (child > 1 && child <= G_MAXINT)
            {
              pid_t child_pid = (pid_t) child;

              g_array_append_val (pids, child_pid);
            }
          p = end;
        }
    }
}

/* The state letter and parent of a process, from /proc/PID/stat. */
static gboolean
read_stat (pid_t  pid,
           char  *state,
           pid_t *parent)
{
  char path[64];
  g_autofree char *text = NULL;
  const char *paren;
  int ppid = 0;

  g_snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  paren = strrchr (text, ')');
  if (paren == NULL || sscanf (paren + 1, " %c %d", state, &ppid) != 2)
    return FALSE;
  *parent = ppid;

  return TRUE;
}

static void
send_signal (const Node *node,
             int         sig)
{
  if (node->pidfd >= 0)
    syscall (SYS_pidfd_send_signal, node->pidfd, sig, NULL, 0);
  else
    kill (node->pid, sig);
}

static void
wait_stopped (pid_t pid)
{
  for (guint waited = 0; waited < STOP_WAIT_US; waited += 200)
    {
      char state;
      pid_t parent;

      if (!read_stat (pid, &state, &parent) ||
          state == 'T' || state == 't' || state == 'Z' || state == 'X')
        return;
      g_usleep (200);
    }
}

/* Stops each victim and, once it is stopped (it forks no more), each of
 * its descendants, top down, then kills them all.  A chain that forks and
 * exits as fast as it can outruns a kill of one generation at a time;
 * stopped, it cannot.  Descendants are held by pidfd and checked to be
 * the child of a stopped process, so no reused pid is signalled. */
static void
freeze_and_kill (GArray *victims)
{
  g_autoptr(GArray) nodes = g_array_new (FALSE, FALSE, sizeof (Node));
  g_autoptr(GArray) children = g_array_new (FALSE, FALSE, sizeof (pid_t));

  for (guint i = 0; i < victims->len; i++)
    {
      Node node = { g_array_index (victims, pid_t, i), -1 };

      node.pidfd = (int) syscall (SYS_pidfd_open, node.pid, 0);
      g_array_append_val (nodes, node);
    }

  for (guint i = 0; i < nodes->len; i++)
    {
      Node node = g_array_index (nodes, Node, i);

      send_signal (&node, SIGSTOP);
      /* Without pidfds only the engine's own children are signalled. */
      if (node.pidfd < 0)
        continue;
      wait_stopped (node.pid);

      g_array_set_size (children, 0);
      list_children (node.pid, children);
      for (guint j = 0; j < children->len; j++)
        {
          Node child = { g_array_index (children, pid_t, j), -1 };
          char state;
          pid_t parent;

          child.pidfd = (int) syscall (SYS_pidfd_open, child.pid, 0);
          if (child.pidfd < 0)
            continue;
          if (!read_stat (child.pid, &state, &parent) || parent != node.pid)
            {
              close (child.pidfd);
              continue;
            }
          g_array_append_val (nodes, child);
        }
    }

  for (guint i = 0; i < nodes->len; i++)
    {
      Node *node = &g_array_index (nodes, Node, i);

      send_signal (node, SIGKILL);
      if (node->pidfd >= 0)
        close (node->pidfd);
    }
}

/* The start time of a process in clock ticks, field 22 of /proc/PID/stat
 * (@pid 0: this process's, by /proc/self, which is right whichever
 * namespace's /proc is mounted). */
static gboolean
read_start (pid_t    pid,
            guint64 *start)
{
  char path[64];
  g_autofree char *text = NULL;
  const char *p;

  if (pid == 0)
    g_strlcpy (path, "/proc/self/stat", sizeof path);
  else
    g_snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  p = strrchr (text, ')');
  if (p == NULL)
    return FALSE;
  /* Fields 3 to 21 lie between the name and the start time. */
  for (guint field = 2; field < 22 && p != NULL; field++)
    p = strchr (p + 1, ' ');
  if (p == NULL || !g_ascii_isdigit (p[1]))
    return FALSE;
  *start = g_ascii_strtoull (p + 1, NULL, 10);

  return TRUE;
}

/* TRUE when @mark names an engine (not this one) that is gone. */
static gboolean
mark_of_dead_engine (guint64 mark)
{
  guint64 x;
  guint64 start;
  pid_t engine;

  if (mark >= RLIM_INFINITY - 1)
    return FALSE;
  x = RLIM_INFINITY - 1 - mark;
  if ((x >> MARK_TAG_SHIFT) != MARK_TAG || (x & ~MARK_SEQ_MASK) == engine_tag)
    return FALSE;

  engine = (pid_t) ((x >> MARK_PID_SHIFT) & MARK_PID_MASK);
  if (engine <= 1)
    return FALSE;

  return !read_start (engine, &start) ||
         (start & MARK_START_MASK) != ((x >> MARK_START_SHIFT) & MARK_START_MASK);
}

/* The mark of a process of this user, by prlimit(): a system call, not
 * a /proc file to format (a tenth of the time); FALSE for another user's,
 * which this engine could not signal either. */
static gboolean
get_mark (pid_t    pid,
          guint64 *mark)
{
  struct rlimit limit;

  if (prlimit (pid, RLIMIT_LOCKS, NULL, &limit) != 0)
    return FALSE;
  *mark = limit.rlim_max;

  return TRUE;
}

/* Whether @pid is in this engine's PID namespace: a mark's pid is its
 * engine's as that namespace numbers it, and in another one (an engine in
 * a sandbox with a namespace of its own) it names some other process or
 * none, so a live engine's call there would be taken for a dead one's.
 * FALSE when it cannot be told. */
static gboolean
in_own_pid_namespace (pid_t pid)
{
  static char own[64];
  char path[64];
  char link[64];
  ssize_t n;

  if (own[0] == '\0')
    {
      n = readlink ("/proc/self/ns/pid", own, sizeof own - 1);
      if (n <= 0)
        return FALSE;
      own[n] = '\0';
    }
  g_snprintf (path, sizeof path, "/proc/%d/ns/pid", (int) pid);
  n = readlink (path, link, sizeof link - 1);
  if (n <= 0)
    return FALSE;
  link[n] = '\0';

  return strcmp (link, own) == 0;
}

static gboolean
nodes_have_pid (GArray *nodes,
                pid_t   pid)
{
  for (guint i = 0; i < nodes->len; i++)
    if (g_array_index (nodes, Node, i).pid == pid)
      return TRUE;

  return FALSE;
}

/* Ends every process, anywhere, whose mark names an engine that is gone.
 * Each is held by pidfd and its mark read again once held (so a reused
 * pid is never signalled), stopped so it forks no more, and the scan is
 * made again until it finds nothing new; then all are killed.  They are
 * not this engine's children: PID 1 (or whoever adopted them) reaps. */
static void
sweep_dead_engines (void)
{
  g_autoptr(GArray) nodes = g_array_new (FALSE, FALSE, sizeof (Node));

  for (guint pass = 0; pass < DEAD_SWEEP_PASSES; pass++)
    {
      g_autoptr(GDir) dir = g_dir_open ("/proc", 0, NULL);
      const char *name;
      guint found = 0;

      if (dir == NULL)
        break;
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          guint64 value;
          guint64 mark;
          Node node;

          if (!g_ascii_isdigit (*name))
            continue;
          value = g_ascii_strtoull (name, NULL, 10);
          if (value <= 1 || value > G_MAXINT)
            continue;
          node.pid = (pid_t) value;
          if (nodes_have_pid (nodes, node.pid) ||
              !get_mark (node.pid, &mark) || !mark_of_dead_engine (mark) ||
              !in_own_pid_namespace (node.pid))
            continue;

          node.pidfd = (int) syscall (SYS_pidfd_open, node.pid, 0);
          if (node.pidfd < 0)
            continue;
          if (!get_mark (node.pid, &mark) || !mark_of_dead_engine (mark))
            {
              close (node.pidfd);
              continue;
            }
          send_signal (&node, SIGSTOP);
          g_array_append_val (nodes, node);
          found++;
        }
      if (found == 0)
        break;
    }

  for (guint i = 0; i < nodes->len; i++)
    {
      Node *node = &g_array_index (nodes, Node, i);

      send_signal (node, SIGKILL);
      close (node->pidfd);
    }
  if (nodes->len > 0)
    g_debug ("shell: ended %u processes of engines that are gone", nodes->len);
}

guint64
_pd_shell_sweep_begin (void)
{
  guint64 mark = 0;

  g_mutex_lock (&sweep_lock);

  if (!base_known)
    {
      struct rlimit limit;
      int subreaper = 0;
      guint64 start;

      live_marks = g_array_new (FALSE, FALSE, sizeof (guint64));
      live_reapers = g_array_new (FALSE, FALSE, sizeof (pid_t));
      if (getrlimit (RLIMIT_LOCKS, &limit) == 0)
        base_mark = limit.rlim_max;
      if (prctl (PR_GET_CHILD_SUBREAPER, &subreaper, 0, 0, 0) == 0 && subreaper != 0)
        was_subreaper = TRUE;
      if (base_mark == RLIM_INFINITY && read_start (0, &start))
        engine_tag = (MARK_TAG << MARK_TAG_SHIFT) |
                     ((start & MARK_START_MASK) << MARK_START_SHIFT) |
                     (((guint64) getpid () & MARK_PID_MASK) << MARK_PID_SHIFT);
      base_known = TRUE;
    }

  /* The engine adopts what a dead reaper leaves only while a call runs:
   * unrelated orphans (an app a window opened that forks and exits) would
   * stay its zombies otherwise. */
  if (live_calls++ == 0 && prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    g_debug ("shell: cannot become a child subreaper: %s", g_strerror (errno));

  /* First, what calls of engines that are gone left behind (a reaper
   * stopped, then its engine killed). */
  if (engine_tag != 0)
    sweep_dead_engines ();

  /* Below the engine's own limit, one no running call has: one that
   * names this engine when the limit is unlimited.  With a limit of 2 or
   * less (set by hand) there is no room: no mark, no sweep. */
  if (engine_tag != 0)
    for (guint tries = 0; tries < 64 && mark == 0; tries++)
      {
        guint64 candidate = RLIM_INFINITY - 1 - (engine_tag | (next_seq++ & MARK_SEQ_MASK));

        if (!array_has_mark (candidate))
          mark = candidate;
      }
  else if (base_mark > 2)
    for (guint tries = 0; tries < 64 && mark == 0; tries++)
      {
        guint64 candidate = base_mark - 1 - (next_seq++ % (base_mark - 2));

        if (!array_has_mark (candidate))
          mark = candidate;
      }
  if (mark != 0)
    g_array_append_val (live_marks, mark);

  return mark;
}

void
_pd_shell_sweep_spawned (guint64 mark,
                         pid_t   reaper)
{
  if (reaper > 0)
    g_array_append_val (live_reapers, reaper);
  g_mutex_unlock (&sweep_lock);
}

/* One pass: kills the marked orphans of calls that are over and reaps
 * those that are dead; FALSE when there were none. */
static gboolean
sweep_once (void)
{
  g_autoptr(GArray) children = g_array_new (FALSE, FALSE, sizeof (pid_t));
  g_autoptr(GArray) victims = g_array_new (FALSE, FALSE, sizeof (pid_t));

  list_children (getpid (), children);
  for (guint i = 0; i < children->len; i++)
    {
      pid_t pid = g_array_index (children, pid_t, i);
      guint64 mark;

      /* A running call's reaper is waited for by its call. */
      if (array_has_reaper (pid))
        continue;
      if (!read_mark (pid, &mark) || mark >= base_mark || array_has_mark (mark))
        continue;
      g_array_append_val (victims, pid);
    }

  if (victims->len == 0)
    return FALSE;

  freeze_and_kill (victims);

  /* Each victim is the engine's own child (not one a GLib child watch or
   * anyone else waits for: they are not marked), so it is reaped here;
   * one not dead yet is found again on the next pass. */
  for (guint i = 0; i < victims->len; i++)
    {
      int status;

      waitpid (g_array_index (victims, pid_t, i), &status, WNOHANG);
    }

  return TRUE;
}

void
_pd_shell_sweep_end (guint64 mark,
                     pid_t   reaper)
{
  g_mutex_lock (&sweep_lock);

  for (guint i = 0; i < live_marks->len; i++)
    if (g_array_index (live_marks, guint64, i) == mark)
      {
        g_array_remove_index_fast (live_marks, i);
        break;
      }
  for (guint i = 0; i < live_reapers->len; i++)
    if (g_array_index (live_reapers, pid_t, i) == reaper)
      {
        g_array_remove_index_fast (live_reapers, i);
        break;
      }

  /* Until none is left: killing one makes its children the engine's. */
  if (base_mark > 2)
    while (sweep_once ())
      g_usleep (500);

  if (--live_calls == 0 && !was_subreaper)
    prctl (PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);

  g_mutex_unlock (&sweep_lock);
}
