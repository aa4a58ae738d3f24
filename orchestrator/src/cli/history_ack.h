#ifndef ORCH_CLI_HISTORY_ACK_H
#define ORCH_CLI_HISTORY_ACK_H
/* orch history ack ...: argv from "ack" on; the process exit code. */
int cmd_history_ack(int argc, char **argv);

#endif
