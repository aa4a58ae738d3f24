/* a transport header */
int t_open(void);
