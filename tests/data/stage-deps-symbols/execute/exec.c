/* fixture: execute calls down into transport (allowed) */
int transport_use(void);

int execute_item_count(void)
{
	return 1;
}

int execute_run(void)
{
	return transport_use();
}
