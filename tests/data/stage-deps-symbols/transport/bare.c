/* fixture: a transport calling up into execute through a prototype of its
 * own, no include: only the symbol check sees it */
int execute_item_count(void);

int transport_use(void)
{
	return execute_item_count();
}
