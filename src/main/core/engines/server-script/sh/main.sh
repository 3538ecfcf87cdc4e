
# -------------------------------------------------------------------------------------- dispatch --
# dispatch COMMAND ARGS...: calls cmd_<command> with the command as $1 (without forking tr).
dispatch() {
  case $1 in
    pause) cmd_pause "$@" ;;
    complete) cmd_complete "$@" ;;
    resume) cmd_resume "$@" ;;
    lazy-arm) cmd_lazy_arm "$@" ;;
    lazy-wait) cmd_lazy_wait "$@" ;;
    lazy-stop) cmd_lazy_stop "$@" ;;
    lazy-forget) cmd_lazy_forget "$@" ;;
    criu-hold) cmd_criu_hold "$@" ;;
    after-restore) cmd_after_restore "$@" ;;
    checkpoint-create) cmd_checkpoint_create "$@" ;;
    checkpoint-live) cmd_checkpoint_live "$@" ;;
    set-hostname) cmd_set_hostname "$@" ;;
    checkpoint-info) cmd_checkpoint_info "$@" ;;
    checkpoint-remove) cmd_checkpoint_remove "$@" ;;
    checkpoint-copy) cmd_checkpoint_copy "$@" ;;
    image-remove) cmd_image_remove "$@" ;;
    image-save) cmd_image_save "$@" ;;
    image-send) cmd_image_send "$@" ;;
    image-saved-remove) cmd_image_saved_remove "$@" ;;
    copy-workspace) cmd_copy_workspace "$@" ;;
    diff-list) cmd_diff_list "$@" ;;
    diff-file) cmd_diff_file "$@" ;;
    root-diff) cmd_root_diff "$@" ;;
    root-diff-file) cmd_root_diff_file "$@" ;;
    sync) cmd_sync "$@" ;;
    sync-all) cmd_sync_all "$@" ;;
    freeze-all) cmd_freeze_all "$@" ;;
    probe) cmd_probe "$@" ;;
    follow) shift; cmd_follow "$@" ;;
    probe-memory) cmd_probe_memory "$@" ;;
    criu-version) cmd_criu_version "$@" ;;
    xfer-dir) cmd_xfer_dir "$@" ;;
    xfer-remove) cmd_xfer_remove "$@" ;;
    xfer-status) cmd_xfer_status "$@" ;;
    xfer-send) cmd_xfer_send "$@" ;;
    xfer-receive) cmd_xfer_receive "$@" ;;
    xfer-done) cmd_xfer_done "$@" ;;
    part-pack) cmd_part_pack "$@" ;;
    part-unpack) cmd_part_unpack "$@" ;;
    part-have) cmd_part_have "$@" ;;
    part-append) cmd_part_append "$@" ;;
    part-read) cmd_part_read "$@" ;;
    part-size) cmd_part_size "$@" ;;
    root-checkpoint) cmd_root_checkpoint "$@" ;;
    root-checkpoint-info) cmd_root_checkpoint_info "$@" ;;
    root-sample-docker-dump) cmd_root_sample_docker_dump "$@" ;;
    root-dump-why) cmd_root_dump_why "$@" ;;
    root-checkpoint-live) cmd_root_checkpoint_live "$@" ;;
    root-set-hostname) cmd_root_set_hostname "$@" ;;
    root-fsync-checkpoint) cmd_root_fsync_checkpoint "$@" ;;
    root-unfold) cmd_root_unfold "$@" ;;
    root-after-restore) cmd_root_after_restore "$@" ;;
    root-remove-checkpoint) cmd_root_remove_checkpoint "$@" ;;
    root-end-execs) cmd_root_end_execs "$@" ;;
    root-lazy-arm) cmd_root_lazy_arm "$@" ;;
    root-lazy-stop) cmd_root_lazy_stop "$@" ;;
    root-lazy-forget) cmd_root_lazy_forget "$@" ;;
    root-lazy-lock) cmd_root_lazy_lock "$@" ;;
    root-lazy-conf-clean) cmd_root_lazy_conf_clean "$@" ;;
    root-end-runc) cmd_root_end_runc "$@" ;;
    root-freezer) cmd_root_freezer "$@" ;;
    root-watch-freeze) cmd_root_watch_freeze "$@" ;;
    root-freeze-prep) cmd_root_freeze_prep "$@" ;;
    root-probe) cmd_root_probe "$@" ;;
    root-criu-facts) cmd_root_criu_facts "$@" ;;
    root-criu-features) cmd_root_criu_features "$@" ;;
    root-criu-diagnose) cmd_root_criu_diagnose "$@" ;;
    root-copy-checkpoint) cmd_root_copy_checkpoint "$@" ;;
    root-xfer-tar) cmd_root_xfer_tar "$@" ;;
    root-xfer-tar-file) cmd_root_xfer_tar_file "$@" ;;
    root-xfer-untar-file) cmd_root_xfer_untar_file "$@" ;;
    *) echo "berth-server.sh: unknown command $1" >&2; return 2 ;;
  esac
}

case ${1:-} in
  detach) shift; cmd_detach "$@" ;;
  start) shift; cmd_start "$@" ;;
  run-job) shift; cmd_run_job "$@" ;;
  follow) shift; cmd_follow "$@" ;;
  forget) shift; cmd_forget "$@" ;;
  "") echo "usage: berth-server.sh detach|start|follow|forget|pause|complete|resume|checkpoint-*|probe-memory|... ARGS" >&2; exit 2 ;;
  *) dispatch "$@" ;;
esac
