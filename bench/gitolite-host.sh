#!/bin/sh
# A gitolite3 host behind sshd on 127.0.0.1:2222, for bench/host-drain.mjs
# (HOST_DRAIN_GITOLITE=DIR): the drain through a host that refuses the
# pending-change refs, as issue 31 measured it. Run as root, once per boot:
#   apt-get install -y gitolite3 openssh-server && bench/gitolite-host.sh /some/dir
# It creates a user `git` (home /srv/git), keys under DIR/keys (admin,
# agent), an sshd of its own (DIR/sshd) and the gitolite.conf below.
set -e
D=${1:?usage: gitolite-host.sh DIR}
id git >/dev/null 2>&1 || useradd -m -d /srv/git -s /bin/sh git
usermod -p '*' git # no password, but not locked: sshd without PAM refuses a locked account
mkdir -p $D/keys $D/sshd
[ -f $D/keys/admin ] || ssh-keygen -q -t ed25519 -N '' -f $D/keys/admin -C admin
[ -f $D/keys/agent ] || ssh-keygen -q -t ed25519 -N '' -f $D/keys/agent -C agent
[ -f $D/sshd/host ] || ssh-keygen -q -t ed25519 -N '' -f $D/sshd/host
chmod 600 $D/keys/admin $D/keys/agent
cp $D/keys/admin.pub /tmp/admin.pub && chmod 644 /tmp/admin.pub
if [ ! -d /srv/git/repositories/gitolite-admin.git ]; then
  su - git -c 'git config --global init.defaultBranch master; gitolite setup -pk /tmp/admin.pub'
fi
cat > $D/sshd/sshd_config <<CONF
Port 2222
ListenAddress 127.0.0.1
HostKey $D/sshd/host
PidFile $D/sshd/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
UsePAM no
StrictModes no
MaxStartups 200:30:400
MaxSessions 100
LogLevel ERROR
CONF
mkdir -p /run/sshd
[ -f $D/sshd/sshd.pid ] && kill -0 $(cat $D/sshd/sshd.pid) 2>/dev/null || /usr/sbin/sshd -f $D/sshd/sshd_config
export GIT_SSH_COMMAND="ssh -i $D/keys/admin -p 2222 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
rm -rf $D/admin && git clone -q ssh://git@127.0.0.1/gitolite-admin $D/admin
cp $D/keys/agent.pub $D/admin/keydir/agent.pub
cat > $D/admin/conf/gitolite.conf <<CONF
repo gitolite-admin
    RW+     =   admin

# Agents may write refs/tasks/ only (create, fast-forward): the pending-change refs are refused.
repo refusing/..*
    C       =   admin
    RW+     =   admin
    RW  refs/tasks/         =   agent

# The same, and the pending-change refs granted (create, delete).
repo granting/..*
    C       =   admin
    RW+     =   admin
    RW  refs/tasks/         =   agent
    RW+ refs/tasks-claims/  =   agent
CONF
cd $D/admin && git add -A && git -c user.name=admin -c user.email=admin@x commit -qm conf && git push -q origin master
echo ok
