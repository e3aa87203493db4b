# tools/deps.mk -- Debian packages before the first compile (included first by
# the Makefile).
#
# tools/deps.sh knows the package groups: build, newlib, musl, run, test,
# bench, pictures. Each group has a stamp, $(B)/.deps/GROUP, made by running
# tools/deps.sh. Every rule that runs a tool of a group lists
# $(call deps,GROUP...) as order-only prerequisites, so no object, tool or
# recipe can start before its packages are present, whatever the goal and -j.
#
# Once, first: the command-line goals name the groups this make needs
# (deps_goal_GOAL below; DEPS_GOAL_GROUPS). deps adds those groups' stamps to
# every rule, every stamp checks them all, and the stamps are made one after
# another (each waits for the goal groups before it in DEPS_ORDER). So the
# first stamp made installs everything (as root: one apt-get) or prints the
# one exact apt-get line and stops make (not root), before any compile.
#
# Re-validation: a stamp depends on tools/deps.sh and on dpkg's status file
# (DPKG_STATUS), which dpkg rewrites whenever a package is installed or
# removed. After any package change the next make re-checks (one dpkg-query,
# milliseconds), so a package removed later is noticed; otherwise an
# up-to-date stamp costs nothing.

DEPS_ORDER  := build newlib musl run test pictures bench
DPKG_STATUS ?= $(wildcard /var/lib/dpkg/status)

deps_goal_all          := build newlib musl
deps_goal_iso          := build newlib musl
deps_goal_kernel       := build
deps_goal_libc         := build newlib
deps_goal_newlib       := build newlib
deps_goal_user         := build newlib musl
deps_goal_run          := build newlib musl run
deps_goal_debug        := build newlib musl run test
deps_goal_test         := build newlib musl run test pictures
deps_goal_pictures     := build newlib musl run pictures
deps_goal_console      := test
deps_goal_unit         := build test
deps_goal_deps         := $(DEPS_ORDER)
deps_goal_bench        := build newlib musl run bench
deps_goal_bench-linux  := build newlib musl run bench
deps_goal_bench-pv     := build newlib musl run bench
deps_goal_bench-musl   := build musl
deps_goal_bench-pagoda := build newlib
deps_goal_bench-smoke  := build newlib musl bench
DEPS_GOAL_GROUPS := $(sort $(foreach g,$(or $(MAKECMDGOALS),all),$(deps_goal_$(g))))

# $(call deps,GROUP...): the stamps a rule needing GROUP... waits for.
deps = $(patsubst %,$(B)/.deps/%,$(sort $(1) $(DEPS_GOAL_GROUPS)))

DEPS_STAMPS := $(DEPS_ORDER:%=$(B)/.deps/%)
$(DEPS_STAMPS): $(B)/.deps/%: tools/deps.sh $(DPKG_STATUS)
	@mkdir -p $(@D)
	$(Q)tools/deps.sh $(sort $* $(DEPS_GOAL_GROUPS))
	@touch $@

# One at a time: each stamp waits for the goal groups' stamps before it.
deps_prev :=
$(foreach g,$(DEPS_ORDER),\
	$(eval $(B)/.deps/$(g): | $(patsubst %,$(B)/.deps/%,$(filter $(deps_prev),$(DEPS_GOAL_GROUPS))))\
	$(eval deps_prev += $(g)))

# make deps: every group's packages, nothing built.
.PHONY: deps
deps: | $(call deps,$(DEPS_ORDER))
	@:
