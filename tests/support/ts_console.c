#include "ts_console.h"
#include "testsupport.h"

#include "util/deadline.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <unistd.h>

int ts_console_start(const char *dir, const char *name, const char *script, char **link,
		     pid_t *pid)
{
	char *file = xasprintf("%s.sh", name);
	char *path = ts_write_file(dir, file, script);
	*link = xasprintf("%s/%s", dir, name);
	char *cmd = xasprintf("exec socat pty,raw,echo=0,link=%s "
			      "EXEC:'/bin/sh %s',pty,setsid,ctty,stderr", *link, path);
	*pid = ts_spawn(cmd, NULL);
	TS_FREE(cmd, path, file);
	for (int64_t dl = deadline_in_ms(5000); !deadline_expired(dl); usleep(20000))
		if (access(*link, F_OK) == 0)
			return 0;
	return access(*link, F_OK) == 0 ? 0 : -1;
}

char *ts_console_login_script(const char *board, const char *password)
{
	return xasprintf("while :; do\n"
			 "user=\n"
			 "while [ -z \"$user\" ]; do printf '\\r\\n%s login: '; read user || exit 1; done\n"
			 "printf 'Password: '\n"
			 "stty -echo; read pw || exit 1; stty echo; echo\n"
			 "if [ \"$user\" = root ] && [ \"$pw\" = '%s' ]; then\n"
			 "  /bin/sh -i\n"
			 "else\n"
			 "  echo 'Login incorrect'; sleep 1\n"
			 "fi\n"
			 "done\n", board, password);
}
