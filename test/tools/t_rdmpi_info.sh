#!/bin/sh
# rdmpi_info: each option, the parsable form, and bad command lines.
. "$top_srcdir/test/tap.sh"
I="$top_builddir/tools/rdmpi_info"
plan 16

run "$I"
[ $rc -eq 0 ]; ok $? "no options: exit 0"
echo "$out" | grep -q "^  prefix " && echo "$out" | grep -q "^  inter_host " &&
	echo "$out" | grep -q "^  verbs "
ok $? "no options: build facts and transports"
run "$I" --version
[ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q "^rdmpi_info (rdmpi) "
ok $? "--version: one line"
run "$I" --help
[ $rc -eq 0 ] && echo "$out" | grep -q -- "--parsable"; ok $? "--help lists the options"
run "$I" --all --parsable
[ $rc -eq 0 ]; ok $? "--all --parsable: exit 0"
echo "$out" | grep -qv '^[a-z_.A-Z0-9]*:'; [ $? -ne 0 ]; ok $? "--parsable: every line is key:value"
echo "$out" | grep -q "^param.RDMPI_SM_EAGER_LIMIT.default:" &&
	echo "$out" | grep -q "^param.RDMPI_NP.layer:launcher" &&
	echo "$out" | grep -q "^param.RDMPI_TIMEOUT.help:" && echo "$out" | grep -q "^build.pmix:"
ok $? "--all: library and launcher parameters, build facts"
RDMPI_TIMEOUT=7 run "$I" --param RDMPI_TIMEOUT --parsable
echo "$out" | grep -q "^param.RDMPI_TIMEOUT.value:7$" &&
	echo "$out" | grep -q "^param.RDMPI_TIMEOUT.source:environment$"
ok $? "--param NAME: the current value from the environment"
run "$I" --param btl_sm --parsable
[ $rc -eq 0 ] && ! echo "$out" | grep "\.layer:" | grep -qv ":btl_sm$"
ok $? "--param LAYER: that layer's parameters only"
RDMPI_SM_EAGER_LIMIT=lots run "$I" --param sm_eager_limit --parsable
echo "$out" | grep -q "source:environment (malformed)"; ok $? "a malformed value is flagged"
# The rails btl/ofi would open for peers on other hosts, as MPI_Init's
# selection makes them (RDMPI_BTL_OFI_RAILS included).
run "$I" --parsable
if echo "$out" | grep -q "^transport.inter_host:ofi: "; then
	echo "$out" | grep -q "^transport.inter_host_rails:0: [^ ]* (fabric [^)]*)"
	ok $? "the rails for other hosts: $(echo "$out" | grep '^transport.inter_host_rails:')"
	RDMPI_BTL_OFI_RAILS=1 run "$I" --parsable
	r1=$(echo "$out" | grep '^transport.inter_host_rails:')
	RDMPI_BTL_OFI_RAILS=nosuch0 run "$I" --parsable
	echo "$r1" | grep -q "^transport.inter_host_rails:0: [^;]*$" &&
		echo "$out" | grep -q "^transport.inter_host_rails:none: RDMPI_BTL_OFI_RAILS=nosuch0: "
	ok $? "RDMPI_BTL_OFI_RAILS=1: one rail ($r1); a name matching nothing: none, and why"
else
	skip "btl/ofi chooses nothing for other hosts here"
	skip "btl/ofi chooses nothing for other hosts here"
fi
run "$I" bogus
[ $rc -eq 2 ] && echo "$err" | grep -q "^usage: rdmpi_info" && [ -z "$out" ]
ok $? "rdmpi_info bogus: exit 2 with a usage line ($rc)"
run "$I" --frobnicate
[ $rc -eq 2 ] && echo "$err" | grep -q "unknown option '--frobnicate'"; ok $? "unknown option: exit 2"
run "$I" --param
[ $rc -eq 2 ]; ok $? "--param without a name: exit 2"
run "$I" --param nosuch
[ $rc -eq 2 ] && echo "$err" | grep -q "no parameter or layer of that name; the layers are .*launcher"
ok $? "--param of an unknown name: exit 2, the layers listed"
finish
