#!/bin/bash
# Soft-RDMA guests for testing rdmpi over verbs on a host without RDMA:
# a Debian 12 qemu guest whose kernel runs rdma_rxe (rxe0, RoCE v2, on
# eth0) and siw (siw0, iWARP, on eth1). docs/rdma-testing.md has the rest.
#
#   rdma-vm.sh check           0 if guests can run here, else 77 and why
#   rdma-vm.sh image [--peers] build (or reuse) the cached image; --peers
#                              adds Open MPI and MPICH for bench/rdma
#   rdma-vm.sh run FILE        one guest runs FILE (bash) as root
#   rdma-vm.sh run2 FILE_A FILE_B
#                              two guests, joined by qemu socket links on
#                              127.0.0.1, run FILE_A and FILE_B at once
#
# The guest sees this host's directories RDMA_VM_SHARE (colon-separated,
# default: the current directory) at the same paths, read-write, so an
# rdmpi build or install runs there as built; FILE runs in the current
# directory. Exit status: FILE's (run2: the first non-zero of the two),
# 124 on timeout, 77 when guests cannot run here.
#
# Environment: RDMA_VM_CACHE (/var/cache/rdmpi/rdma-vm), RDMA_VM_TIMEOUT
# (seconds per guest run, 1800), RDMA_VM_MEM (MiB, 3072), RDMA_VM_SMP (2),
# RDMA_VM_OUT (a directory that keeps each guest's console and output, also
# of a run that was interrupted), RDMA_VM_MIRROR.
# In the guest: GUEST (a or b), RXE_IP, SIW_IP, RXE_GID (the GID index of
# RXE_IP, RoCE v2), PEER_RXE_IP, PEER_SIW_IP (run2); hosts rdmavm-a and
# rdmavm-b resolve to their rxe addresses, and root reaches the other
# guest by ssh without a password.
set -euo pipefail

CACHE=${RDMA_VM_CACHE:-/var/cache/rdmpi/rdma-vm}
TMO=${RDMA_VM_TIMEOUT:-1800}
MEM=${RDMA_VM_MEM:-3072}
SMP=${RDMA_VM_SMP:-2}
ROOT=$CACHE/rootfs
IMG=$CACHE/root.img
T0=$SECONDS
# Documentation ranges (RFC 5737): guest traffic never leaves the links.
NET_RXE=198.51.100
NET_SIW=203.0.113
# Libraries rdmpi's own programs link (mpirun: libsodium); an image cached
# before one was added gets it installed (runtime_pkgs).
RUNTIME_PKGS="libsodium23"
# The guest's runtime: rdma-core, perftest, libfabric, PMIx (rdmpi's
# build runs there unchanged), ssh for two-guest jobs, gcc for siw.ko.
PKGS="linux-image-amd64,kmod,udev,iproute2,procps,psmisc,ethtool,rdma-core,ibverbs-utils,\
ibverbs-providers,rdmacm-utils,perftest,libfabric1,libfabric-bin,libpmix2,libibverbs1,\
openssh-server,openssh-client,build-essential,ca-certificates,$RUNTIME_PKGS"
PEER_PKGS="openmpi-bin libopenmpi-dev mpich libmpich-dev"

log() { echo "[rdma-vm +$((SECONDS - T0))s] $*" >&2; }
skip() { echo "rdma-vm: skipped: $*" >&2; exit 77; }
usage() { sed -n '5,14p' "$0" >&2; exit 2; }

mirror() {
    [ -n "${RDMA_VM_MIRROR:-}" ] && { echo "$RDMA_VM_MIRROR"; return; }
    { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
        2>/dev/null || true; } | awk '($1=="URIs:"||$1=="deb"){for(i=2;i<=NF;i++)
            if ($i ~ /^https?:\/\/.*\/debian\/?$/) {print $i; exit}}'
}

# Host tools: qemu, debootstrap and mkfs come from Debian; without root or
# a reachable archive there are no guests, which is a skip, not a failure.
host_tools() {
    command -v qemu-system-x86_64 >/dev/null && command -v debootstrap >/dev/null &&
        command -v mkfs.ext4 >/dev/null && return 0
    [ "$(id -u)" = 0 ] || skip "qemu-system-x86_64 or debootstrap missing and not root"
    log "installing qemu-system-x86, qemu-utils, debootstrap"
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends qemu-system-x86 qemu-utils debootstrap e2fsprogs; } \
        >"$CACHE/apt.log" 2>&1 || skip "cannot install qemu/debootstrap (see $CACHE/apt.log)"
}

kver() { basename "$(ls -d "$ROOT"/lib/modules/*-amd64 | tail -n 1)"; }

debootstrap_root() {
    local m
    [ -f "$ROOT/.debootstrap.done" ] && return 0
    m=$(mirror)
    [ -n "$m" ] || skip "no Debian mirror in apt's sources; set RDMA_VM_MIRROR"
    log "debootstrap bookworm from $m (10-20 min)"
    rm -rf "$ROOT"
    debootstrap --variant=minbase --include="$PKGS" bookworm "$ROOT" "$m" \
        >"$CACHE/debootstrap.log" 2>&1 ||
        { rm -rf "$ROOT"; skip "debootstrap failed (Debian archive unreachable?), see $CACHE/debootstrap.log"; }
    touch "$ROOT/.debootstrap.done"
}

in_root() { chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive "$@"; }

# Debian 12's kernel lacks CONFIG_RDMA_SIW: build siw.ko from its source.
build_siw() {
    local k s
    k=$(kver)
    s=linux-source-${k%%.0-*}
    [ -f "$ROOT/lib/modules/$k/updates/siw.ko" ] && return 0
    grep -q '^CONFIG_RDMA_SIW=[my]' "$ROOT/boot/config-$k" && return 0
    log "building siw.ko for $k"
    cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
    in_root apt-get install -y -q --no-install-recommends "linux-headers-$k" "$s" \
        >>"$CACHE/siw-build.log" 2>&1 || skip "cannot install $s in the guest, see $CACHE/siw-build.log"
    rm -rf "$ROOT/usr/src/siw" && mkdir -p "$ROOT/usr/src/siw"
    tar -xJf "$ROOT/usr/src/$s.tar.xz" -C "$ROOT/usr/src/siw" --strip-components=5 \
        "$s/drivers/infiniband/sw/siw"
    in_root make -C "/usr/src/linux-headers-$k" M=/usr/src/siw CONFIG_RDMA_SIW=m modules \
        >>"$CACHE/siw-build.log" 2>&1
    mkdir -p "$ROOT/lib/modules/$k/updates"
    strip --strip-debug -o "$ROOT/lib/modules/$k/updates/siw.ko" "$ROOT/usr/src/siw/siw.ko"
    in_root depmod -a "$k"
    in_root apt-get purge -y -q "$s" "linux-headers-$k" >>"$CACHE/siw-build.log" 2>&1 || true
    rm -rf "$ROOT/usr/src/siw"
    in_root apt-get clean
}

# One key pair serves both guests (they boot the same image), so root on
# one reaches the other by ssh: mpirun's launch agent between guests.
setup_ssh() {
    [ -f "$ROOT/root/.ssh/id_ed25519" ] && return 0
    mkdir -p "$ROOT/root/.ssh" && chmod 700 "$ROOT/root/.ssh"
    ssh-keygen -q -t ed25519 -N '' -C rdmavm -f "$ROOT/root/.ssh/id_ed25519" 2>/dev/null ||
        in_root ssh-keygen -q -t ed25519 -N '' -C rdmavm -f /root/.ssh/id_ed25519
    cp "$ROOT/root/.ssh/id_ed25519.pub" "$ROOT/root/.ssh/authorized_keys"
    printf 'Host *\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n' \
        >"$ROOT/root/.ssh/config"
    in_root ssh-keygen -A >/dev/null
}

runtime_pkgs() {
    local p missing=
    for p in ${RUNTIME_PKGS//,/ }; do
        in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
            missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    log "installing$missing in the guest"
    cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
    { in_root apt-get update -q && in_root apt-get install -y -q --no-install-recommends $missing; } \
        >"$CACHE/runtime.log" 2>&1 || skip "cannot install$missing in the guest, see $CACHE/runtime.log"
    in_root apt-get clean
}

install_peers() {
    [ -f "$ROOT/.peers.done" ] && return 0
    log "installing $PEER_PKGS in the guest"
    cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
    in_root apt-get install -y -q --no-install-recommends $PEER_PKGS >"$CACHE/peers.log" 2>&1 ||
        skip "cannot install the peers in the guest, see $CACHE/peers.log"
    in_root apt-get clean
    touch "$ROOT/.peers.done"
}

# PID 1 of the guest: links, shares, RDMA devices, then the command.
write_init() {
    cat >"$ROOT/sbin/rdma-init.new" <<'EOF'
#!/bin/bash
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb
mountpoint -q /proc || mount -t proc proc /proc; mountpoint -q /sys || mount -t sysfs sys /sys
mountpoint -q /dev || mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm /ctl /run/sshd; mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm; mount -t tmpfs tmpfs /tmp; mount -t tmpfs tmpfs /run; mkdir -p /run/sshd
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^rdmavm\.$1=//p"; }
G=$(arg guest) RXE_NET=$(arg rxe) SIW_NET=$(arg siw)
hostname "rdmavm-$G"; ulimit -l unlimited; ip link set lo up
for m in virtio_net 9pnet_virtio 9p ib_uverbs rdma_ucm rdma_rxe siw; do modprobe $m || echo "rdma-init: modprobe $m failed"; done
o=trans=virtio,version=9p2000.L,msize=524288,cache=none
mount -t 9p -o $o ctl /ctl
i=0; for p in $(arg shares | tr ',' ' '); do mkdir -p "$p" && mount -t 9p -o $o "share$i" "$p"; i=$((i + 1)); done
n=$([ "$G" = a ] && echo 1 || echo 2); peer=$([ "$G" = a ] && echo 2 || echo 1)
ip addr add "$RXE_NET.$n/24" dev eth0 && ip link set eth0 up
ip addr add "$SIW_NET.$n/24" dev eth1 && ip link set eth1 up
rdma link add rxe0 type rxe netdev eth0; rdma link add siw0 type siw netdev eth1
export GUEST=$G RXE_IP=$RXE_NET.$n SIW_IP=$SIW_NET.$n
[ "$(arg two)" = 1 ] && export PEER_RXE_IP=$RXE_NET.$peer PEER_SIW_IP=$SIW_NET.$peer
# libfabric's verbs provider resolves localhost: without it no verbs entry.
printf '127.0.0.1 localhost\n%s.1 rdmavm-a\n%s.2 rdmavm-b\n' "$RXE_NET" "$RXE_NET" >/etc/hosts
: >/etc/resolv.conf
gid=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(echo "$RXE_IP" | tr . ' '))
for f in /sys/class/infiniband/rxe0/ports/1/gids/*; do
    [ "$(cat "$f" 2>/dev/null)" = "$gid" ] && [ "$(cat "${f%/gids/*}/gid_attrs/types/${f##*/}" 2>/dev/null)" = "RoCE v2" ] &&
        export RXE_GID=${f##*/} && break
done
[ "$(arg two)" = 1 ] && /usr/sbin/sshd
echo "rdma-init: guest $G, kernel $(uname -r), $(rdma link | tr '\n' ';')" >/dev/console
cd "$(arg cwd)" && bash /ctl/cmd >/ctl/out.log 2>&1; echo $? >/ctl/rc
sync; cd /; umount -a -t 9p 2>/dev/null; echo o >/proc/sysrq-trigger; sleep 60
EOF
    chmod 755 "$ROOT/sbin/rdma-init.new"
    if cmp -s "$ROOT/sbin/rdma-init.new" "$ROOT/sbin/rdma-init"; then
        rm "$ROOT/sbin/rdma-init.new"
    else
        mv "$ROOT/sbin/rdma-init.new" "$ROOT/sbin/rdma-init"
    fi
}

make_image() {
    local k
    k=$(kver)
    [ -f "$IMG" ] && [ -z "$(find "$ROOT/sbin/rdma-init" "$ROOT/.debootstrap.done" \
        "$ROOT/lib/modules/$k" "$ROOT/var/lib/dpkg/status" -maxdepth 0 -newer "$IMG")" ] && return 0
    log "making the guest image"
    rm -f "$IMG.tmp"
    mkfs.ext4 -q -F -L rdmaroot -d "$ROOT" "$IMG.tmp" 6G && mv "$IMG.tmp" "$IMG"
}

# Builds what is missing under an exclusive lock (two test runs may ask at
# once); the lock goes with the process.
image() {
    mkdir -p "$CACHE"
    [ -w "$CACHE" ] || skip "$CACHE is not writable (set RDMA_VM_CACHE)"
    exec 9>"$CACHE/.lock"
    flock 9
    host_tools
    debootstrap_root
    build_siw
    runtime_pkgs
    setup_ssh
    [ "${1:-}" = --peers ] && install_peers
    write_init
    make_image
    flock -u 9
    exec 9>&-
}

check() {
    [ "$(uname -m)" = x86_64 ] || skip "guests need an x86_64 host"
    if [ ! -f "$IMG" ] && [ "$(id -u)" != 0 ]; then skip "no cached image and not root to build one"; fi
}

QPIDS=()
RUNS=()
cleanup() {
    local p
    for p in "${QPIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    sleep 1
    for p in "${QPIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    for p in "${RUNS[@]}"; do
        [ -n "${RDMA_VM_OUT:-}" ] && mkdir -p "$RDMA_VM_OUT" &&
            cp -f "$p/console.log" "$RDMA_VM_OUT/console-${p##*.}.log" 2>/dev/null &&
            cp -f "$p/out.log" "$RDMA_VM_OUT/out-${p##*.}.log" 2>/dev/null
        rm -rf "$p"
    done
    QPIDS=() RUNS=()
}

# boot GUEST CMDFILE NET0 NET1: starts one guest in the background.
boot() {
    local g=$1 cmd=$2 net0=$3 net1=$4 run i=0 shares="" virtfs=() two=0 k
    k=$(kver)
    run=$(mktemp -d "$CACHE/run.XXXXXX")
    RUNS+=("$run")
    cp "$cmd" "$run/cmd"
    IFS=: read -r -a dirs <<<"${RDMA_VM_SHARE:-$PWD}"
    for d in "${dirs[@]}"; do
        d=$(realpath "$d")
        case $d in *[,\ ]*) echo "rdma-vm: a shared path may hold no comma or space: $d" >&2; exit 2 ;; esac
        virtfs+=(-virtfs "local,path=$d,mount_tag=share$i,security_model=none")
        shares=$shares${shares:+,}$d
        i=$((i + 1))
    done
    [ "${RUN2:-0}" = 1 ] && two=1
    mac() { printf '52:54:00:%02x:%02x:%02x' "$1" "$2" "$3"; }
    TMPDIR=$CACHE qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m "$MEM" -smp "$SMP" \
        -display none -monitor none -no-reboot -serial "file:$run/console.log" \
        -kernel "$ROOT/boot/vmlinuz-$k" -initrd "$ROOT/boot/initrd.img-$k" \
        -append "root=/dev/vda rw console=ttyS0 init=/sbin/rdma-init panic=-1 quiet net.ifnames=0 \
rdmavm.guest=$g rdmavm.rxe=$NET_RXE rdmavm.siw=$NET_SIW rdmavm.two=$two rdmavm.shares=$shares rdmavm.cwd=$PWD" \
        -drive "file=$IMG,format=raw,if=virtio,snapshot=on" \
        -netdev "$net0,id=n0" -device "virtio-net-pci,netdev=n0,mac=$(mac 0 "$two" "$([ "$g" = a ] && echo 1 || echo 2)")" \
        -netdev "$net1,id=n1" -device "virtio-net-pci,netdev=n1,mac=$(mac 1 "$two" "$([ "$g" = a ] && echo 1 || echo 2)")" \
        -virtfs "local,path=$run,mount_tag=ctl,security_model=none" "${virtfs[@]}" \
        </dev/null >"$run/qemu.log" 2>&1 &
    QPIDS+=("$!")
}

# Waits for every guest, at most TMO seconds; prints their output.
collect() {
    local t=$SECONDS rc=0 r k=0 run
    while :; do
        local alive=0
        for p in "${QPIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        if ((SECONDS - t > TMO)); then log "timeout after ${TMO}s"; rc=124; break; fi
        sleep 1
    done
    for run in "${RUNS[@]}"; do
        [ ${#RUNS[@]} -gt 1 ] && echo "=== guest $([ $k = 0 ] && echo a || echo b)"
        cat "$run/out.log" 2>/dev/null || true
        grep -v '^$' "$run/qemu.log" >&2 || true
        r=$(cat "$run/rc" 2>/dev/null || echo 124)
        [ $rc = 0 ] && rc=$r
        if [ "$r" = 124 ] && [ ! -f "$run/rc" ]; then
            echo "rdma-vm: guest $k never finished its command; console tail:" >&2
            tail -n 20 "$run/console.log" >&2 || true
        fi
        k=$((k + 1))
    done
    log "guests done, status $rc"
    return "$rc"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

trap cleanup EXIT
trap 'exit 130' INT TERM
case ${1:-} in
check) check ;;
image) shift; image "$@" ;;
run)
    [ $# = 2 ] || usage
    check; image
    user="user,restrict=on,net=$NET_RXE.0/24,host=$NET_RXE.254,dns=$NET_RXE.253"
    user1="user,restrict=on,net=$NET_SIW.0/24,host=$NET_SIW.254,dns=$NET_SIW.253"
    boot a "$2" "$user" "$user1"
    collect
    ;;
run2)
    [ $# = 3 ] || usage
    check; image
    p0=$(free_port) p1=$(free_port)
    RUN2=1 boot a "$2" "socket,listen=127.0.0.1:$p0" "socket,listen=127.0.0.1:$p1"
    sleep 2 # b connects to a's listening sockets
    RUN2=1 boot b "$3" "socket,connect=127.0.0.1:$p0" "socket,connect=127.0.0.1:$p1"
    collect
    ;;
*) usage ;;
esac
