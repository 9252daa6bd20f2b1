"""One scrape of the sample server's actuator, as the mapping's and the text parser's tests read it: Tomcat's
connector pool, littlegrid's in-flight and service-time families, and the scrape's own /actuator series."""

SAMPLE_SERVER = """tomcat_threads_busy_threads{name="http-nio-127.0.0.1-8080"} 3.0
tomcat_connections_current_connections{name="http-nio-127.0.0.1-8080"} 12.0
tomcat_threads_config_max_threads{name="http-nio-127.0.0.1-8080"} 10.0
littlegrid_in_flight_requests 2.0
littlegrid_in_flight_seconds_total 41.25
littlegrid_throttle_queue_length 0.0
littlegrid_service_seconds_count{endpoint="/",method="GET"} 1000.0
littlegrid_service_seconds_sum{endpoint="/",method="GET"} 20.5
littlegrid_service_seconds_count{endpoint="/work",method="GET"} 500.0
littlegrid_service_seconds_sum{endpoint="/work",method="GET"} 10.0
littlegrid_service_seconds_count{endpoint="/actuator/prometheus",method="GET"} 7.0
littlegrid_service_seconds_sum{endpoint="/actuator/prometheus",method="GET"} 0.5
"""
