# `./tradebench bench` and `./tradebench compare` (the main job). Not there yet.

tb_bench()   { die "'bench' is not there yet (its issue is open): use './tradebench serve VARIANT' and './tradebench load'"; }
tb_compare() { die "'compare' is not there yet (its issue is open)"; }
