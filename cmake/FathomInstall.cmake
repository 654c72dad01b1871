# What `cmake --install` (and `make install PREFIX=...`) puts where:
#   bin/                                   fathom, fathomd, fathom-lustre-sim
#   lib/fathom/libfathom-io.so             the I/O tracer `fathom io run` preloads (found beside bin/)
#   lib/fathom/libfathom-h5.so             the HDF5 tracer `fathom h5 run` preloads (likewise)
#   lib/fathom/lustre-sim/                 the emulator's lfs, lctl and liblustreapi.so
#   share/man/man1/                        a page per program and subcommand (from --help)
#   share/bash-completion/completions/     fathom, fathomd
#   lib/systemd/system/                    fathomd.service, fathom-ROLE@.service
#   share/doc/fathom/                      README, docs, example configurations
include(GNUInstallDirs)
include(cmake/FathomManPages.cmake)

set(FATHOM_SIM_DIR lib/fathom/lustre-sim)
install(TARGETS fathom fathomd fathom-lustre-sim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS lfs lctl RUNTIME DESTINATION ${FATHOM_SIM_DIR})
install(TARGETS lustreapi LIBRARY DESTINATION ${FATHOM_SIM_DIR})
# The tracers' directory is fixed relative to bin/ (not CMAKE_INSTALL_LIBDIR's multiarch name):
# `fathom io run` and `fathom h5 run` look for ../lib/fathom/libfathom-{io,h5}.so beside their
# own executable.
install(TARGETS fathom-io fathom-h5 LIBRARY DESTINATION lib/fathom)

install(FILES share/bash-completion/fathom DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES share/bash-completion/fathom DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME fathomd)

# Units name the programs where they are installed: made at install time, for the prefix given
# then (`cmake --install --prefix P`).
foreach(unit fathomd.service fathom-watch@.service fathom-collect@.service fathom-aggregate@.service
             fathom-subscribe@.service)
  install(CODE "
    set(FATHOM_BINDIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
    configure_file(\"${PROJECT_SOURCE_DIR}/examples/systemd/${unit}.in\"
                   \"${CMAKE_BINARY_DIR}/systemd/${unit}\" @ONLY)")
  install(FILES ${CMAKE_BINARY_DIR}/systemd/${unit} DESTINATION lib/systemd/system)
endforeach()

install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY examples/fathomd examples/python DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# One page per program and per subcommand.
fathom_man_page(fathom fathom fathom "a durable, replayable stream of file-system events")
fathom_man_page(fathom-watch fathom fathom "watch directories or a Lustre MDT and print or store their events" ARGS watch)
fathom_man_page(fathom-events fathom fathom "replay and follow the events held in a store" ARGS events)
fathom_man_page(fathom-collect fathom fathom "send a tree's or an MDT's events to an aggregator or a NATS bus" ARGS collect)
fathom_man_page(fathom-aggregate fathom fathom "commit collectors' events into one store and serve them" ARGS aggregate)
fathom_man_page(fathom-subscribe fathom fathom "receive events from an aggregator or a NATS bus, durably" ARGS subscribe)
fathom_man_page(fathom-keygen fathom fathom "make a CURVE key pair for the aggregator or a client" ARGS keygen)
fathom_man_page(fathomd fathomd fathomd "run fathom's roles from one YAML file")
fathom_man_page(fathom-lustre-sim fathom-lustre-sim fathom-lustre-sim "emulate a multi-MDT Lustre file system")
fathom_man_page(fathom-lustre-sim-mount fathom-lustre-sim fathom-lustre-sim "mount an emulated Lustre file system" ARGS mount)
fathom_man_page(fathom-lustre-sim-umount fathom-lustre-sim fathom-lustre-sim "unmount an emulated Lustre file system" ARGS umount)
fathom_man_page(fathom-lustre-sim-fast fathom-lustre-sim fathom-lustre-sim "set up a fast-mode emulated file system for throughput runs" ARGS fast)
fathom_man_page(fathom-lustre-sim-status fathom-lustre-sim fathom-lustre-sim "list the emulated Lustre file systems" ARGS status)
fathom_man_page(fathom-lfs lfs lfs "the Lustre emulator's lfs (changelog, fid2path, path2fid, mkdir -i)" HELP help)
fathom_man_page(fathom-lctl lctl lctl "the Lustre emulator's lctl (changelog users, parameters)" HELP --list-commands)
fathom_man_page(fathom-store fathom fathom "check a store for damage, or save what is readable of a damaged one" ARGS store)
fathom_man_page(fathom-store-verify fathom fathom "check a store file for damage" ARGS store verify)
fathom_man_page(fathom-store-recover fathom fathom "copy every readable event of a damaged store into a new one" ARGS store recover)
fathom_man_page(fathom-scan fathom fathom "scan directory trees in parallel into the catalog" ARGS scan)
fathom_man_page(fathom-catalog fathom fathom "keep the catalog live from the event stream, and check it" ARGS catalog)
fathom_man_page(fathom-catalog-follow fathom fathom "apply the event stream to the catalog as a durable consumer" ARGS catalog follow)
fathom_man_page(fathom-catalog-status fathom fathom "the catalog's size, roots and lag" ARGS catalog status)
fathom_man_page(fathom-catalog-check fathom fathom "recount the catalog's kept statistics" ARGS catalog check)
fathom_man_page(fathom-catalog-verify fathom fathom "compare the catalog with the file system" ARGS catalog verify)
fathom_man_page(fathom-find fathom fathom "search the catalog with GNU find's expressions" ARGS find)
fathom_man_page(fathom-du fathom fathom "disk usage from the catalog, as GNU du prints it" ARGS du)
fathom_man_page(fathom-report fathom fathom "statistics from the catalog, as Robinhood's rbh-report prints them" ARGS report)
fathom_man_page(fathom-undelete fathom fathom "list what the catalog saw removed, and restore from a trash" ARGS undelete)
fathom_man_page(fathom-policy fathom fathom "check, run, schedule and audit policies and alerts on the catalog" ARGS policy)
fathom_man_page(fathom-policy-check fathom fathom "what each policy and rule would act upon now" ARGS policy check)
fathom_man_page(fathom-policy-run fathom fathom "run a policy: live checks, journaled actions" ARGS policy run)
fathom_man_page(fathom-policy-daemon fathom fathom "evaluate triggers and alerts on schedule" ARGS policy daemon)
fathom_man_page(fathom-policy-alerts fathom fathom "check the alerts once" ARGS policy alerts)
fathom_man_page(fathom-policy-log fathom fathom "the action journal and the runs" ARGS policy log)
fathom_man_page(fathom-rules fathom fathom "event-driven rules: actions run for matching events, at least once" ARGS rules)
fathom_man_page(fathom-rules-run fathom fathom "read the event stream and run each matching event's action" ARGS rules run)
fathom_man_page(fathom-rules-test fathom fathom "try the rules on stored history, nothing run" ARGS rules test)
fathom_man_page(fathom-rules-status fathom fathom "deliveries by state per rule, and the cursor's lag" ARGS rules status)
fathom_man_page(fathom-rules-deliveries fathom fathom "the deliveries of the rules, newest first" ARGS rules deliveries)
fathom_man_page(fathom-rules-dead fathom fathom "the dead deliveries" ARGS rules dead)
fathom_man_page(fathom-rules-replay fathom fathom "make dead deliveries pending again" ARGS rules replay)
fathom_man_page(fathom-rules-resume fathom fathom "run a paused rule's deliveries again" ARGS rules resume)
fathom_man_page(fathom-rules-purge fathom fathom "delete the dead deliveries" ARGS rules purge)
fathom_man_page(fathom-rules-enable fathom fathom "call a rule's webhook again after it answered 410 Gone" ARGS rules enable)
fathom_man_page(fathom-io fathom fathom "trace the I/O of programs and read the traces" ARGS io)
fathom_man_page(fathom-io-run fathom fathom "run a command with its I/O traced by libfathom-io.so" ARGS io run)
fathom_man_page(fathom-io-dump fathom fathom "print I/O traces as JSON" ARGS io dump)
fathom_man_page(fathom-io-report fathom fathom "a job's I/O: volumes, rates, modes, phases, findings, Darshan's counters" ARGS io report)
fathom_man_page(fathom-io-compress fathom fathom "a job's traces in one job file, compressed across its processes" ARGS io compress)
fathom_man_page(fathom-io-publish fathom fathom "send a job's trace files to NATS JetStream" ARGS io publish)
fathom_man_page(fathom-io-fetch fathom fathom "rebuild a job's trace files from NATS JetStream" ARGS io fetch)
fathom_man_page(fathom-io-servers fathom fathom "sample Lustre servers', disks' and NFS mounts' statistics" ARGS io servers)
fathom_man_page(fathom-io-anomalies fathom fathom "targets much slower than their peers for the same work" ARGS io anomalies)
fathom_man_page(fathom-h5 fathom fathom "trace the HDF5 calls of programs and read the traces" ARGS h5)
fathom_man_page(fathom-h5-run fathom fathom "run a command with its HDF5 calls traced by libfathom-h5.so" ARGS h5 run)
fathom_man_page(fathom-h5-dump fathom fathom "print HDF5 traces as JSON" ARGS h5 dump)
fathom_man_page(fathom-h5-report fathom fathom "hot functions, latencies, stragglers, datasets, collectives, access shapes and a timeline of HDF5 traces; Darshan's H5F and H5D counters" ARGS h5 report)
fathom_man_page(fathom-h5-lineage fathom fathom "which jobs created, wrote and read each HDF5 dataset, as text or W3C PROV-JSON" ARGS h5 lineage)
fathom_man_page(fathom-h5-events fathom fathom "what programs' HDF5 calls did to their files, as fathom events, printed or stored" ARGS h5 events)
fathom_man_page(fathom-serve fathom fathom "web pages, a REST API and Prometheus metrics over the event store, the catalog, policies, rules, I/O jobs and HDF5 traces" ARGS serve)
fathom_man_page(fathom-token fathom fathom "make, list and revoke the tokens fathom serve accepts" ARGS token)
