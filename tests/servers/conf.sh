# SPDX-License-Identifier: ISC
# The servers' configurations, for tests/servers and bench/servers_bench.sh:
# 127.0.0.1 only, every file in a directory of their own (nothing of the
# system instances'), workers as nobody.
#   nginx_conf DIR PORT DAEMON GEN [WORKERS]  DIR/nginx.conf, serving
#       DIR/www; /gen answers "generation GEN"
#   nginx_args DIR                            nginx's arguments for it
#   haproxy_conf DIR PORT ORIGIN GEN [THREADS]  DIR/haproxy.cfg: a proxy
#       on PORT to a frontend of its own on ORIGIN answering "generation
#       GEN"; pidfile DIR/haproxy.pid
#   usr2_ready PID                            haproxy's master takes a
#       reload now
#   redis_conf DIR PORT                       DIR/redis.conf, the data in
#       DIR/data (for the user redis), nothing saved but by request
NOGROUP=$(id -gn nobody)

nginx_conf() {
	mkdir -p "$1/www" "$1/logs" "$1/tmp"
	[ -f "$1/www/index.html" ] || echo hello >"$1/www/index.html"
	cat >"$1/nginx.conf" <<EOC
daemon $3;
master_process on;
user nobody $NOGROUP;
worker_processes ${5:-2};
error_log $1/logs/error.log notice;
pid $1/nginx.pid;
events { worker_connections 512; }
http {
	access_log off;
	client_body_temp_path $1/tmp/body;
	proxy_temp_path $1/tmp/proxy;
	fastcgi_temp_path $1/tmp/fastcgi;
	uwsgi_temp_path $1/tmp/uwsgi;
	scgi_temp_path $1/tmp/scgi;
	server {
		listen 127.0.0.1:$2;
		root $1/www;
		location = /gen { return 200 "generation $4\n"; }
	}
}
EOC
}

nginx_args() { echo "-p $1 -e $1/logs/error.log -c $1/nginx.conf"; }

haproxy_conf() {
	cat >"$1/haproxy.cfg" <<EOC
global
	user nobody
	group $NOGROUP
	pidfile $1/haproxy.pid
	nbthread ${5:-2}
defaults
	mode http
	timeout connect 2s
	timeout client 10s
	timeout server 10s
frontend proxy
	bind 127.0.0.1:$2
	default_backend origin
backend origin
	server o 127.0.0.1:$3
frontend origin
	bind 127.0.0.1:$3
	http-request return status 200 content-type text/plain \
	    string "generation $4"
EOC
}

# While haproxy's master starts again it ignores SIGUSR2 for a moment: a
# reload asked then is lost, pinned or not (haproxy 2.6).  Ready: SIGUSR2
# caught, neither blocked nor ignored.
usr2_ready() {
	awk -v m=2048 '$1 ~ /^Sig(Blk|Ign|Cgt):$/ {
		v = 0; h = tolower($2); x = "0123456789abcdef"
		for (i = 1; i <= length(h); i++)
			v = v * 16 + index(x, substr(h, i, 1)) - 1
		s[$1] = int(v / m) % 2
	} END { exit !(s["SigCgt:"] && !s["SigBlk:"] && !s["SigIgn:"]) }' \
	    "/proc/$1/status"
}

redis_conf() {
	mkdir -p "$1/data"
	chown redis: "$1/data"
	cat >"$1/redis.conf" <<EOC
bind 127.0.0.1
port $2
daemonize no
dir $1/data
dbfilename dump.rdb
save ""
appendonly no
logfile ""
EOC
}
