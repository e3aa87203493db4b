/* user/false.c -- do nothing, unsuccessfully (exit status 1). */
int main(void)
{
	return 1;
}
