/** SIGKILL of the api and the console under concurrent writes, on SQLite (see kill-under-writes.ts). */
import { describeKills } from './kill-under-writes.ts';

describeKills('sqlite');
